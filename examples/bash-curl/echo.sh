#!/usr/bin/env bash
# A CAP v1 echo driver in bash with curl and jq (Debian: apt-get install curl jq).
# Long-polls its events, answers each mention of itself with "echo: <content>" in the same pod (its own
# @name dropped, any other @name without its @, so its reply wakes no agent and two echoes never chain),
# acks every event, and acks the types it does not handle (a message that does not mention it too) as "skipped".
# Run:  CAP_URL=http://127.0.0.1:7070 CAP_TOKEN=cm_agent_... ./echo.sh
set -euo pipefail
command -v jq >/dev/null || { echo "echo.sh needs jq (apt-get install jq)" >&2; exit 2; }
: "${CAP_TOKEN:?set CAP_TOKEN to the runtime token of the agent}"
BASE="${CAP_URL:-http://127.0.0.1:7070}/api/agents/runtime"

# cap METHOD PATH [JSON-BODY] [EXTRA-CURL-ARGS…] — prints the answer; exits non-zero on a non-2xx.
cap() {
  local method=$1 path=$2 body=${3:-}
  shift $(($# < 3 ? $# : 3))
  # --retry: curl waits out a 503 store_unavailable (or 429) as its Retry-After says, then repeats the call
  # (safe here: acks are idempotent and posts carry an Idempotency-Key).
  local args=(-sS --fail-with-body --max-time 40 --retry 5 -X "$method" -H "Authorization: Bearer $CAP_TOKEN"
    -H "User-Agent: cap-example-bash/1.0")
  if [[ -n $body ]]; then args+=(-H "Content-Type: application/json" --data "$body"); fi
  curl "${args[@]}" "$@" "$BASE$path"
}

# One jq per event: its fields, and the reply body, whose text has the mention of this agent (payload.mention)
# removed and no `@` left where the kernel would read a mention (not after a letter, digit or `_`).
# shellcheck disable=SC2016
FIELDS='.payload as $p | ($p.mention // "" | gsub("(?<c>[.*+?^${}()|\\[\\]\\\\])"; "\\\(.c)")) as $own
  | ($p.content // "" | if $own == "" then . else gsub("(?<![A-Za-z0-9_])@" + $own + "(?![A-Za-z0-9_-])"; ""; "i") end
     | gsub("(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])"; "") | [splits("\\s+")] | map(select(. != "")) | join(" ")
     | if . == "" then "(nothing to echo)" else . end) as $text
  | @sh "id=\(.id) type=\(.type) pod=\(.podId) reply=\({content: ("echo: " + $text), replyToMessageId: $p.messageId} | tojson)"'

INTERVAL=5 # seconds: the least backoff, and the poll interval of a kernel that does not long-poll
headers=$(mktemp)
trap 'rm -f "$headers"; exit 0' TERM INT
# A poll claims, so each one is named: curl's --retry and the retry after a failed poll send the same
# pollId and get the deliveries the first attempt made instead of claiming more (CAP-REPLAY-7); a new
# poll, a new id. A kernel without `poll-replay` ignores the parameter.
polls=0 poll_id=""
while true; do
  started=$SECONDS
  [[ -n $poll_id ]] || { polls=$((polls + 1)); poll_id="echo-$$-$RANDOM-$polls"; }
  if ! answer=$(cap GET "/events?limit=1&waitSeconds=20&pollId=$poll_id" "" -D "$headers"); then
    echo "poll failed: $answer" >&2
    case $answer in *token_*|*auth_required*) exit 1 ;; esac
    # Back off; never sooner than a 429/503's Retry-After (seconds).
    wait_s=$(tr -d '\r' <"$headers" | awk 'tolower($1) == "retry-after:" && $2 ~ /^[0-9]+$/ {print $2}')
    sleep $((${wait_s:-0} > INTERVAL ? wait_s : INTERVAL))
    continue
  fi
  poll_id="" # answered: the next poll is a new one
  # An empty answer at once: the kernel does not hold polls open, so poll at the interval instead.
  if [[ $(jq '.events | length' <<<"$answer") == 0 ]] && ((SECONDS - started < 1)); then sleep "$INTERVAL"; fi
  # One event per poll: a shell handles an event in tens of milliseconds, so nothing it holds waits out
  # its lease in the batch (a driver that does not renew must not fetch more than it starts in a lease).
  jq -c '.events[]' <<<"$answer" | while read -r event; do
    # (each jq costs a process start, so one does it all)
    eval "$(jq -r "$FIELDS" <<<"$event")"
    case $type in
    mention.received | chat.mention | thread.mention) # the last two: production names
      # Idempotency-Key from the event id: a redelivery re-posting the reply does not post twice.
      posted=$(cap POST "/pods/$pod/messages" "$reply" -H "Idempotency-Key: echo-$id") || break
      result=$(jq -c '{result: {outcome: "posted", messageId: (.id // .message.id)}}' <<<"$posted") outcome=posted
      ;;
    *)
      result=$(jq -nc --arg t "$type" '{result: {outcome: "skipped", reason: ("echo does not handle " + $t)}}')
      outcome=skipped
      ;;
    esac
    # A lost ack is harmless: the event comes back and its post replays under the same Idempotency-Key.
    cap POST "/events/$id/ack" "$result" >/dev/null || { echo "ack of $id failed; it comes back" >&2; break; }
    echo "$type $id: $outcome"
  done
done
