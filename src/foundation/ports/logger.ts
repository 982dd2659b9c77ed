/**
 * The logging port. pino's logger satisfies it; lower layers log through it without knowing pino.
 * Object first, message second, as pino does.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything (tests, library use without logging). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/**
 * `log.child(bindings)`, made on its first use: for what is built per request and logs only on
 * rare paths (a 2026-07-28 request's session server), where pino's `child` (serialising the
 * bindings) cost more than the rest of the set-up.
 */
export function lazyChild(log: Logger, bindings: Record<string, unknown>): Logger {
  let made: Logger | undefined;
  const child = () => {
    made ??= log.child(bindings);
    return made;
  };
  return {
    debug: (obj, msg) => (msg === undefined ? child().debug(obj) : child().debug(obj, msg)),
    info: (obj, msg) => (msg === undefined ? child().info(obj) : child().info(obj, msg)),
    warn: (obj, msg) => (msg === undefined ? child().warn(obj) : child().warn(obj, msg)),
    error: (obj, msg) => (msg === undefined ? child().error(obj) : child().error(obj, msg)),
    child: (more) => child().child(more),
  };
}
