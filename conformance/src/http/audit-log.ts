/** What the auditors found over a whole run; read by the aggregate checks that run last. */
import { auditError, auditSuccess, type RegistryEntry, type Violation } from "./audit.js";
import type { Exchange } from "./exchange.js";

export class AuditLog {
  readonly schema: Violation[] = [];
  readonly errors: Violation[] = [];
  successes = 0;
  failures = 0;

  constructor(private readonly registry: ReadonlyMap<string, RegistryEntry>) {}

  /** Feed one exchange (an HttpClient observer). */
  readonly record = (x: Exchange): void => {
    if (x.status >= 200 && x.status < 300) {
      this.successes++;
      this.schema.push(...auditSuccess(x));
    } else {
      this.failures++;
      this.errors.push(...auditError(x, this.registry));
    }
  };
}
