#!/usr/bin/env bash
# hotdb on a CUDA GPU: `hotdb profile resnet18 --target cuda`, then a short tune there;
# then the same through TVM's RPC tracker on that machine (a tracker and one server of key
# gpu on 127.0.0.1: docs/devices.md, section 7), which needs tornado importable too.
#
# Run from the repository root on a machine with an NVIDIA GPU, with apache-tvm,
# apache-tvm-ffi, duckdb and xgboost-cpu importable (PYTHONPATH=/tmp/site below: the
# wheels as `pip install --target /tmp/site` put them). Writes its log to $OUT/gpu.log
# (default: ./gpu.log). bench/README.md holds the figures of the last run.
set -uo pipefail
out=${OUT:-.}
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 HOTDB_CACHE_DIR=/tmp/hotdb-cache
db=/tmp/hotdb-gpu.duckdb
hotdb() { python3 -m hotdb --db "$db" "$@"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import tvm, duckdb, sys; print('python', sys.version.split()[0], 'tvm', tvm.__version__, 'duckdb', duckdb.__version__, 'cuda', tvm.cuda(0).exist)"
  echo "== profile resnet18 on cuda"
  /usr/bin/time -f "%e s wall" python3 -m hotdb --db "$db" profile resnet18 --target cuda --repeat 5
  hotdb top --coverage 90
  echo "== tune resnet18 on cuda: the tasks covering 60 %, 32 trials, one round"
  /usr/bin/time -f "%e s wall" python3 -m hotdb --db "$db" tune resnet18 --target cuda --coverage 60 --trials 32 \
    --rounds 1 --repeat 5 --work-dir /tmp/hotdb-tune-cuda
  hotdb runs -f csv
  hotdb sql "SELECT task_name, record_count, valid_record_count, round(best_cost_us, 1) AS best_cost_us FROM model_tasks WHERE record_count > 0 ORDER BY best_cost_us" -f csv
  echo "== the same through an RPC tracker on this machine (key gpu)"
  python3 -m tvm.exec.rpc_tracker --host 127.0.0.1 --port 9190 --port-end 9191 >/tmp/tracker.log 2>&1 &
  tracker=$!
  sleep 3
  python3 -m tvm.exec.rpc_server --tracker 127.0.0.1:9190 --key gpu --host 127.0.0.1 --port 9090 --port-end 9099 \
    >/tmp/server.log 2>&1 &
  server=$!
  sleep 8
  hotdb devices --rpc 127.0.0.1:9190
  /usr/bin/time -f "%e s wall" python3 -m hotdb --db "$db" profile resnet18 --target cuda --repeat 5 \
    --rpc 127.0.0.1:9190 --key gpu --run rpc-gpu
  hotdb compare resnet18-1 rpc-gpu --by node
  /usr/bin/time -f "%e s wall" python3 -m hotdb --db "$db" tune resnet18 --target cuda --coverage 60 --trials 16 \
    --rounds 1 --repeat 5 --work-dir /tmp/hotdb-tune-cuda-rpc --rpc 127.0.0.1:9190 --key gpu
  hotdb runs --device gpu -f csv
  kill "$server" "$tracker"
} 2>&1 | tee "$out/gpu.log"
