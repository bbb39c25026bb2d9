/**
 * Broken kernels of store outages, each in front of the real kernel whose store the fixture's hook takes
 * away: 503 without Retry-After, 500 instead of 503, no answer at all, a refused post applied once the
 * store is back, and a kernel that never serves again after an outage.
 */
import { type BrokenKernel, is } from "./env.js";
import { HangUp, type ProxyRequest, type Reply, reply } from "./proxy.js";

const storeUnavailable = (res: Reply) =>
  res.status === 503 && (res.json as { code?: unknown } | undefined)?.code === "store_unavailable";
const isPost = (req: ProxyRequest) => is(req, "POST", /^\/pods\/[^/]+\/messages$/);

export const outageKernels: BrokenKernel[] = [
  {
    name: "answers 503 store_unavailable without Retry-After",
    breaks: "CAP-ERR-9",
    only: ["outage.*"],
    make: () => ({
      response(_req, res) {
        if (res.status === 503) delete res.headers["retry-after"];
        return res;
      },
    }),
  },
  {
    name: "answers 500 internal_error while its store is down",
    breaks: "CAP-ERR-9",
    only: ["outage.*"],
    make: () => ({
      response: (_req, res) =>
        storeUnavailable(res) ? reply(500, { code: "internal_error", message: "Internal error." }) : res,
    }),
  },
  {
    name: "hangs up without an answer while its store is down",
    breaks: "CAP-ERR-9",
    only: ["outage.store-unavailable"],
    make: () => ({
      response(_req, res) {
        if (storeUnavailable(res)) throw new HangUp();
        return res;
      },
    }),
  },
  {
    name: "applies a post it refused with 503 once its store is back",
    breaks: "CAP-ERR-9",
    only: ["outage.store-unavailable"],
    make: () => {
      const refused: ProxyRequest[] = [];
      return {
        // Like a write-behind queue: each later answer retries the refused posts until one is taken.
        async response(req, res) {
          if (isPost(req) && storeUnavailable(res)) refused.push(req);
          else
            for (const r of refused.splice(0)) {
              const body = r.json !== undefined ? JSON.stringify(r.json) : r.body;
              const again = await fetch(r.url, {
                method: r.method,
                headers: r.headers,
                ...(body ? { body } : {}),
              });
              if (again.status === 503) refused.push(r);
            }
          return res;
        },
      };
    },
  },
  {
    name: "never serves again after a store outage",
    breaks: "CAP-ERR-12",
    // Alone: outage.store-unavailable would stop at the unrecovered kernel, incomplete, naming nothing.
    only: ["outage.recovers"],
    make: () => {
      let stuck = false;
      return {
        request: (req) =>
          stuck
            ? {
                ...reply(503, { code: "store_unavailable", message: "The store is unavailable." }),
                headers: { "content-type": "application/json; charset=utf-8", "retry-after": "1" },
              }
            : req,
        response(_req, res) {
          if (storeUnavailable(res)) stuck = true;
          return res;
        },
      };
    },
  },
];
