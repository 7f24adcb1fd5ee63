#!/bin/bash
# table2.py runs at once on a lent GPU machine's CPU cores (GPU unused), one per line of a
# runs file: "NAME ARGS..." (ARGS are table2.py's). Each run's log comes back as $OUT/NAME.log
# (at most 8 files come back). Prepared here first, once:
#   mkdir -p .whl .deb; pip download the wheels the machine lacks into .whl (see
#   benchmarks/README.md, "On a lent GPU machine"); apt-get download libseccomp2 into .deb
# Then, through the device tool: run `bash scripts/device_table2.sh RUNS` with carry .whl .deb.
# LIMIT: seconds per run (default 450); PY: the Python (default python3); DRY=1 skips installs.
set -u
runs=${1:?usage: scripts/device_table2.sh RUNS_FILE}
start=$(date +%s)
PY=${PY:-python3}
if [ -z "${DRY:-}" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl 2>&1 | tail -2
  if ! ldconfig -p | grep -q libseccomp.so.2; then
    mkdir -p /tmp/sc && dpkg -x .deb/libseccomp2_*.deb /tmp/sc \
      && cp -a /tmp/sc/usr/lib/x86_64-linux-gnu/libseccomp.so.2* /usr/lib/x86_64-linux-gnu/ \
      && ldconfig && echo "libseccomp: carried"
  fi
fi
# one XLA thread, one sandbox worker and 2 torch threads per run; workers import from the
# interpreter's own site-packages (their environment names only this repository)
export PYTHONPATH=$PWD JAX_PLATFORMS=cpu RLGPT_XLA_THREADS=1 RLGPT_WORKERS=1 OMP_NUM_THREADS=2 \
  RLGPT_TORCH_DEVICE=cpu PYTHONUNBUFFERED=1
$PY -c "import jax, torch; print('jax', jax.__version__, 'torch', torch.__version__)"
$PY -c "from rlgpt_tui.doctor import check_sandbox as c; r=c(); print(r); raise SystemExit(r.status != 'OK')" \
  || { echo "no sandbox here: stopping"; exit 1; }
while read -r name args; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  # shellcheck disable=SC2086
  ( timeout "${LIMIT:-450}" $PY benchmarks/table2.py $args > "$OUT/$name.log" 2>&1
    echo "$name rc=$? $(( $(date +%s) - start )) s" ) &
done < "$runs"
wait
for f in "$OUT"/*.log; do echo "== $f"; grep -v '^{' "$f" | tail -3; done
