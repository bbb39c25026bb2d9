#!/usr/bin/env bash
# The cap-conformance composite action's one step: turn INPUT_* variables into cap-conformance flags
# (`run` against a kernel, or `driver` against a driver when INPUT_MODE=driver), run it, publish the Markdown report to the job summary and the verdict to the step outputs, and exit with the
# suite's exit code. Runs the published package with npx (in driver mode with the reference kernel beside
# it) unless CAP_CONFORMANCE_BIN names another command to run instead (a local build, for instance).
set -uo pipefail

mode="${INPUT_MODE:-kernel}"
dir="${INPUT_REPORT_DIR:-cap-conformance-reports}"
mkdir -p "$dir"
reports=(--report "json=$dir/report.json" --report "junit=$dir/report.xml"
  --report "markdown=$dir/report.md" --report "html=$dir/report.html")

case $mode in
kernel)
  : "${INPUT_FIXTURE:?the fixture input is required in kernel mode}"
  args=(run --fixture "$INPUT_FIXTURE" "${reports[@]}")
  ;;
driver)
  : "${INPUT_COMMAND:?the command input (how to start your driver) is required in driver mode}"
  args=(driver --command "$INPUT_COMMAND" "${reports[@]}")
  [ -n "${INPUT_STARTUP_TIMEOUT:-}" ] && args+=(--startup-timeout "$INPUT_STARTUP_TIMEOUT")
  ;;
*)
  echo "cap-conformance action: mode must be kernel or driver, got \"$mode\"" >&2
  exit 2
  ;;
esac
[ "$mode" = kernel ] && for u in ${INPUT_URLS:-}; do args+=(--url "$u"); done
for p in ${INPUT_ONLY:-}; do args+=(--only "$p"); done
for p in ${INPUT_SKIP:-}; do args+=(--skip "$p"); done
[ "$mode" = kernel ] && for f in ${INPUT_CLAIM:-}; do args+=(--claim "$f"); done
[ -n "${INPUT_LEVEL:-}" ] && args+=(--level "$INPUT_LEVEL")
[ "${INPUT_STRICT:-false}" = "true" ] && args+=(--strict)
[ "${INPUT_TRACE:-false}" = "true" ] && args+=(--trace)
[ -n "${INPUT_LEASE_SECONDS:-}" ] && args+=(--lease-seconds "$INPUT_LEASE_SECONDS")
[ -n "${INPUT_MAX_ATTEMPTS:-}" ] && args+=(--max-attempts "$INPUT_MAX_ATTEMPTS")
[ -n "${INPUT_TIME_SCALE:-}" ] && args+=(--time-scale "$INPUT_TIME_SCALE")
[ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
[ "$mode" = kernel ] && [ -n "${INPUT_TRIGGER_CMD:-}" ] && args+=(--trigger-cmd "$INPUT_TRIGGER_CMD")
[ "$mode" = kernel ] && [ -n "${INPUT_STORE_DOWN_CMD:-}" ] && args+=(--store-down-cmd "$INPUT_STORE_DOWN_CMD")
[ "$mode" = kernel ] && [ -n "${INPUT_STORE_UP_CMD:-}" ] && args+=(--store-up-cmd "$INPUT_STORE_UP_CMD")

version="${INPUT_VERSION:-1}"
if [ -n "${CAP_CONFORMANCE_BIN:-}" ]; then
  read -r -a bin <<<"$CAP_CONFORMANCE_BIN"
elif [ "$mode" = driver ]; then
  # Driver mode plays the kernel with the reference kernel, an optional peer the suite does not install:
  # npx installs it beside the suite, at the suite's major (1.4.2 → 1, latest → latest).
  bin=(npx --yes -p "@commonly/cap-conformance@$version" -p "@commonly/cap-kernel@${version%%.*}" cap-conformance)
else
  bin=(npx --yes "@commonly/cap-conformance@$version")
fi

"${bin[@]}" "${args[@]}"
code=$?

verdict=error
if [ -f "$dir/report.json" ]; then
  verdict=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary.verdict)' "$dir/report.json" 2>/dev/null || echo error)
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$dir/report.md" ]; then cat "$dir/report.md" >>"$GITHUB_STEP_SUMMARY"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "verdict=$verdict"
    echo "report-dir=$dir"
  } >>"$GITHUB_OUTPUT"
fi
exit "$code"
