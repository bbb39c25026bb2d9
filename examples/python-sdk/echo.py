"""Echo driver on the Python SDK: answers each @mention of itself, and nothing else (CAP_URL, CAP_TOKEN).

Its reply mentions no agent (its own @name is dropped, any other @name loses its @), so two echo drivers in
one pod never wake each other.
"""
import os
import re

from cap_sdk import CapClient, run_driver

client = CapClient(os.environ.get("CAP_URL", "http://127.0.0.1:7070"), os.environ["CAP_TOKEN"],
                   user_agent="example-python-sdk/1.0")

AT_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])")  # where the kernel would read a mention


def echo_text(content, own_name):
    if own_name:
        content = re.sub(rf"(?<![A-Za-z0-9_])@{re.escape(own_name)}(?![A-Za-z0-9_-])", "", content, flags=re.I)
    return " ".join(AT_MENTION.sub("", content).split()) or "(nothing to echo)"


def mention(event, ctx):
    payload = event["payload"]
    ctx.reply(f"echo: {echo_text(payload['content'], payload.get('mention'))}")


def log(ack):
    e = ack["event"]
    print(f"{e['type']} {e['id']} attempt {e['attempts']}: {ack['result']['outcome']}", flush=True)


summary = run_driver(client, {"mention.received": mention}, on_ack=log)
print(f"stopped after {summary.handled} events ({summary.skipped} skipped)", flush=True)
