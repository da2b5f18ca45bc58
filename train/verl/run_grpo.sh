#!/usr/bin/env bash
# GRPO with verl on one or more GPU nodes, the SuperCoder verifier as the reward.
#
#   train/verl/run_grpo.sh MODEL_DIR TRAIN_ROWS [VAL_ROWS] [hydra overrides...]
#
# MODEL_DIR: a local model (e.g. Qwen2.5-Coder-7B-Instruct, as the SuperCoder paper starts from).
# TRAIN_ROWS / VAL_ROWS: .parquet (or .jsonl, converted here) rows in the SuperCoder format, e.g. from
#   `supercoder export --format rl` or the SuperCoder dataset itself.
# Every node needs gcc, hyperfine and this checkout: the reward runs the verifier (sandboxed) where verl
# runs it. Environment: NNODES (1), GPUS_PER_NODE (8), VERL_VENV (.venv-verl), REWARD_DESIGN (speedup|graded).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { sed -n 2,12p "$0"; exit 2; }
model=$1 train=$2 val=${3:-$2}
shift $(( $# >= 3 ? 3 : 2 ))
venv=${VERL_VENV:-$root/.venv-verl}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
  "$venv/bin/pip" install -q --no-deps -e "$root"   # the verifier; its own dependencies follow
  "$venv/bin/pip" install -q pyelftools==0.33 capstone==5.0.6 rich==15.0.0 platformdirs==4.14.8
fi
parquet() {  # verl reads parquet
  case $1 in
    *.parquet) echo "$1" ;;
    *) out="${1%.*}.parquet"
       "$venv/bin/python" -c 'import sys, pandas as pd; pd.read_json(sys.argv[1], lines=True).to_parquet(sys.argv[2])' "$1" "$out"
       echo "$out" ;;
  esac
}
train=$(parquet "$train") val=$(parquet "$val")
"$venv/bin/python" "$here/preflight.py" "$train" "$root/supercoder_lsp/train/verl_reward.py" "${REWARD_DESIGN:-speedup}"
exec "$venv/bin/python" -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="$train" data.val_files="$val" \
  data.prompt_key=prompt data.max_prompt_length=4096 data.max_response_length=4096 \
  data.train_batch_size=64 \
  actor_rollout_ref.model.path="$model" \
  actor_rollout_ref.actor.optim.lr=1e-6 \
  actor_rollout_ref.actor.ppo_mini_batch_size=16 \
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.kl_loss_coef=0.001 \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=8 \
  reward.custom_reward_function.path="$root/supercoder_lsp/train/verl_reward.py" \
  reward.custom_reward_function.name=compute_score \
  +reward.custom_reward_function.reward_kwargs.design="${REWARD_DESIGN:-speedup}" \
  trainer.nnodes="${NNODES:-1}" trainer.n_gpus_per_node="${GPUS_PER_NODE:-8}" \
  trainer.project_name=supercoder trainer.experiment_name=grpo trainer.logger='[console]' \
  "$@"
