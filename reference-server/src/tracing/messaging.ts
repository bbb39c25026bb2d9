/**
 * The messaging semantic conventions the kernel's `send` and `receive` spans use. Written out here because
 * @opentelemetry/semantic-conventions keeps them in its incubating entry, a large module to load for six
 * names. The kernel is the broker: `send` is the enqueue a post causes, `receive` a driver's poll.
 */
export const MESSAGING_SYSTEM = "messaging.system";
export const MESSAGING_OPERATION_TYPE = "messaging.operation.type";
export const MESSAGING_OPERATION_NAME = "messaging.operation.name";
export const MESSAGING_BATCH_MESSAGE_COUNT = "messaging.batch.message_count";
export const MESSAGING_DESTINATION_NAME = "messaging.destination.name";
export const MESSAGING_MESSAGE_ID = "messaging.message.id";
export const DB_SYSTEM_NAME = "db.system.name";

/** `messaging.system` of every kernel messaging span. */
export const CAP_SYSTEM = "cap";
