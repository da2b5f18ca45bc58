"""Orchestration: one C file through the stages (`pipeline.Pipeline`), the judge of each candidate, the
harness set-up, the first look, the cache and the rebuilt-file check (`replace`). It uses the stages
(source, build, asm, harness, verify, measure, propose, hotness) and is used by the CLI, the language
server and train/; the stages never import it."""
