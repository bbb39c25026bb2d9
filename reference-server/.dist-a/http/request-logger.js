class LazyChild {
    parent;
    bindings;
    options;
    #real;
    constructor(parent, bindings, options) {
        this.parent = parent;
        this.bindings = bindings;
        this.options = options;
    }
    get #child() {
        this.#real ??= this.parent.child(this.bindings, this.options);
        return this.#real;
    }
    #write(level, args) {
        if (this.#real === undefined && !this.parent.isLevelEnabled(level))
            return;
        this.#child[level](...args);
    }
    get level() {
        return this.#real?.level ?? this.parent.level;
    }
    set level(level) {
        this.#child.level = level;
    }
    // Prototype methods, not arrow-function fields: six closures per request would undo the saving.
    fatal(...args) {
        this.#write("fatal", args);
    }
    error(...args) {
        this.#write("error", args);
    }
    warn(...args) {
        this.#write("warn", args);
    }
    info(...args) {
        this.#write("info", args);
    }
    debug(...args) {
        this.#write("debug", args);
    }
    trace(...args) {
        this.#write("trace", args);
    }
    silent() { }
    child(bindings, options) {
        return this.#child.child(bindings, options);
    }
}
const levelAware = (logger) => typeof logger.isLevelEnabled === "function";
/** Fastify's `childLoggerFactory`: a request's logger, made when it first writes a line. */
export const lazyRequestLogger = (logger, bindings, options) => levelAware(logger) && Object.keys(options).length === 0
    ? new LazyChild(logger, bindings, options)
    : logger.child(bindings, options);
//# sourceMappingURL=request-logger.js.map