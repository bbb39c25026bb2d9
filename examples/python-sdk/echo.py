"""Echo driver on the Python SDK: answers every @mention with what it was sent (CAP_URL, CAP_TOKEN)."""
import os

from cap_sdk import CapClient, run_driver

client = CapClient(os.environ.get("CAP_URL", "http://127.0.0.1:7070"), os.environ["CAP_TOKEN"],
                   user_agent="example-python-sdk/1.0")


def mention(event, ctx):
    ctx.reply(f"echo: {event['payload']['content']}")


def log(ack):
    e = ack["event"]
    print(f"{e['type']} {e['id']} attempt {e['attempts']}: {ack['result']['outcome']}", flush=True)


summary = run_driver(client, {"mention.received": mention}, on_ack=log)
print(f"stopped after {summary.handled} events ({summary.skipped} skipped)", flush=True)
