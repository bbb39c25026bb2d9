#!/usr/bin/env bash
# A CAP v1 echo driver in bash with curl and jq (Debian: apt-get install curl jq).
# Long-polls its events, answers human messages and mentions with "echo: <content>" in the same pod,
# acks every event, and acks the types it does not handle as "skipped".
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

trap 'exit 0' TERM INT
while true; do
  if ! answer=$(cap GET "/events?limit=10&waitSeconds=20"); then
    echo "poll failed: $answer" >&2
    case $answer in *token_*|*auth_required*) exit 1 ;; esac
    sleep 5 # kernel unreachable: back off, then poll again
    continue
  fi
  jq -c '.events[]' <<<"$answer" | while read -r event; do
    id=$(jq -r .id <<<"$event")
    type=$(jq -r .type <<<"$event")
    case $type in
    message.posted | mention.received | chat.mention | thread.mention) # the last two: production names
      reply=$(jq -c '{content: ("echo: " + .payload.content), replyToMessageId: .payload.messageId}' <<<"$event")
      pod=$(jq -r .podId <<<"$event")
      # Idempotency-Key from the event id: a redelivery re-posting the reply does not post twice.
      posted=$(cap POST "/pods/$pod/messages" "$reply" -H "Idempotency-Key: echo-$id") || break
      result=$(jq -c '{result: {outcome: "posted", messageId: (.id // .message.id)}}' <<<"$posted")
      ;;
    *) result=$(jq -nc --arg t "$type" '{result: {outcome: "skipped", reason: ("echo does not handle " + $t)}}') ;;
    esac
    cap POST "/events/$id/ack" "$result" >/dev/null || break # not acked: it comes back and is re-acked
    echo "$type $id: $(jq -r .result.outcome <<<"$result")"
  done
done
