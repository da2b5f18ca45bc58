"""Before GPU hours are spent: load the reward the way verl will (its own loader and the launch script's
config) and score the first training row's own -O3 assembly, which must verify and score 1.0 (speedup)
or 1.0 (graded). Fails with the reason when the reward cannot run on this node (no gcc, no sandbox, ...).

    python preflight.py ROWS.parquet REWARD_FILE [design]
"""

import sys

import pandas as pd
from omegaconf import OmegaConf
from verl.trainer.ppo.reward import get_custom_reward_fn

rows, path = sys.argv[1], sys.argv[2]
design = sys.argv[3] if len(sys.argv) > 3 else "speedup"
cfg = OmegaConf.create(
    {"reward": {"custom_reward_function": {"path": path, "name": "compute_score", "reward_kwargs": {"design": design}}}}
)
fn = get_custom_reward_fn(cfg)
row = pd.read_parquet(rows).iloc[0].to_dict()
truth = row["reward_model"]["ground_truth"]
info = {k: (list(v) if hasattr(v, "tolist") else v) for k, v in row["extra_info"].items()}
score = fn(
    data_source=row["data_source"], solution_str=f"```assembly\n{truth}\n```", ground_truth=truth, extra_info=info
)
if score != 1.0:
    sys.exit(f"preflight: the baseline's own assembly scored {score}, not 1.0: the reward does not work on this node")
print(f"preflight: reward loaded by verl from {path}; the first row's own -O3 assembly scores {score}")
