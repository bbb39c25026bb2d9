import { isProfileName, PROFILE_NAMES } from "../profiles/names.js";
export const DEFAULT_DB = "sqlite:.cap-kernel/kernel.db";
const env = (name) => {
    const v = process.env[name];
    return v === undefined || v === "" ? undefined : v;
};
function int(name, raw, fallback, min, max) {
    if (raw === undefined)
        return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
        throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
}
export function resolveCommon(flags) {
    return {
        db: flags.db ?? env("CAP_DB") ?? DEFAULT_DB,
        leaseSeconds: int("--lease-seconds", flags.leaseSeconds ?? env("CAP_LEASE_SECONDS"), 30, 1, 86_400),
        maxAttempts: int("--max-attempts", flags.maxAttempts ?? env("CAP_MAX_ATTEMPTS"), 5, 1, 1000),
    };
}
export function resolveServe(flags) {
    return {
        ...resolveCommon(flags),
        port: int("--port", flags.port ?? env("CAP_PORT"), 7070, 0, 65_535),
        host: flags.host ?? env("CAP_HOST") ?? "127.0.0.1",
        logLevel: flags.logLevel ?? env("CAP_LOG_LEVEL") ?? "info",
        profile: profile(flags.profile ?? env("CAP_PROFILE")),
    };
}
function profile(raw) {
    if (raw === undefined)
        return "cap";
    if (!isProfileName(raw))
        throw new Error(`--profile must be one of ${PROFILE_NAMES.join(", ")}, got "${raw}"`);
    return raw;
}
/** A URL a client on this machine can use to reach a server bound to `host`. */
export function baseUrlFor(host, port) {
    const h = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
    return `http://${h}:${port}`;
}
//# sourceMappingURL=settings.js.map