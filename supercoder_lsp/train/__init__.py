"""Evaluation, training data and the reward: the verifier for people who measure and train models."""
