/**
 * The JavaScript that runs inside QuickJS before the program: it builds `tools`, `console`,
 * `setTimeout`/`clearTimeout`, and returns the internals the runner drives (`compile`, `finish`,
 * `describe`). It is evaluated as one function expression and called with the host functions as
 * arguments, so those functions never sit on `globalThis` where the program could reach them.
 *
 * Everything the internals rely on is captured here, before any program code runs, so a program
 * that replaces `JSON.stringify` or `String.prototype.slice` only breaks itself. The host trusts
 * none of it anyway: every value crossing the boundary is re-checked on the host side.
 */

/**
 * Lines `new AsyncFunction(code)` puts before the body in QuickJS (`(async function anonymous(`
 * and `) {`): program line N is reported as line N + 2 of `<input>`.
 */
export const GUEST_LINE_OFFSET = 2;

/** The file name QuickJS gives code compiled by the Function constructors. */
export const GUEST_FILE_NAME = '<input>';

/**
 * Called as `prelude(hostCall, hostLog, hostSleep, toolIndexJson, maxLogChars)`.
 * - `toolIndexJson` is `toolIndexJson(toolIds)`: `{ namespace: { name: id } }`.
 * - `hostCall(method, paramsJson)` → Promise of a JSON reply envelope `{ ok, value | code, message }`.
 * - `hostLog(level, text)` → false once the log budget is spent.
 * - `hostSleep(ms)` → Promise resolved after `ms` (capped by the deadline).
 */
export const GUEST_PRELUDE = String.raw`(function (hostCall, hostLog, hostSleep, toolIndexJson, maxLogChars) {
  'use strict';
  const JSONstringify = JSON.stringify;
  const JSONparse = JSON.parse;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const create = Object.create;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  const sliceString = Function.prototype.call.bind(String.prototype.slice);
  const AsyncFunction = (async function () {}).constructor;
  const ProxyCtor = Proxy;
  const ownKeys = Reflect.ownKeys;
  const min = Math.min;

  const cut = (text, max) => (text.length > max ? sliceString(text, 0, max) + '…' : text);

  async function request(method, params) {
    const reply = JSONparse(await hostCall(method, JSONstringify(params)));
    if (reply.ok) return reply.value;
    const error = new ErrorCtor(reply.message);
    error.name = 'GatewayError';
    error.code = reply.code;
    if (reply.details !== undefined) error.details = reply.details;
    throw error;
  }

  async function call(id, args) {
    if (typeof id !== 'string') throw new TypeErrorCtor('tools.call(id, args): id must be a string');
    return request('tools.call', { id, args: args === undefined ? {} : args });
  }

  async function search(query, options) {
    if (typeof query !== 'string') throw new TypeErrorCtor('tools.search(query, options): query must be a string');
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new TypeErrorCtor('tools.search(query, options): options must be an object');
    }
    return request('tools.search', { query, options: options === undefined ? {} : options });
  }

  async function describe(id) {
    if (typeof id !== 'string') throw new TypeErrorCtor('tools.describe(id): id must be a string');
    return request('tools.describe', { id });
  }

  const fixed = (value) => ({ value, enumerable: true, writable: false, configurable: false });
  const tools = {};
  defineProperty(tools, 'call', fixed(call));
  defineProperty(tools, 'search', fixed(search));
  defineProperty(tools, 'describe', fixed(describe));
  // One Proxy per namespace, functions made on first use: setup costs O(namespaces), not O(tools),
  // which matters with catalogs of thousands of tools.
  const refuse = () => false;
  // The last lookup of a tool or namespace that does not exist. It stays undefined to the program
  // (feature checks like typeof tools.ns.x keep working), but when the program then fails with a
  // TypeError ("not a function"), the error names the nearest real tools instead of leaving a bare
  // TypeError to decode.
  let lastMiss;
  const IGNORED_MISSES = { then: true, toJSON: true, constructor: true, valueOf: true, toString: true };
  const noteMiss = (namespace, name, candidates) => {
    if (typeof (name === undefined ? namespace : name) !== 'string') return;
    if (IGNORED_MISSES[name === undefined ? namespace : name] === true) return;
    lastMiss = { namespace, name, candidates };
  };
  function distance(a, b) {
    let previous = [];
    for (let j = 0; j <= b.length; j++) previous[j] = j;
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      }
      previous = row;
    }
    return previous[b.length];
  }
  const nearest = (word, candidates) => {
    const lower = StringCtor(word).toLowerCase();
    const scored = [];
    for (let i = 0; i < candidates.length && i < 5000; i++) {
      scored.push({ c: candidates[i], d: distance(lower, StringCtor(candidates[i]).toLowerCase()) });
    }
    scored.sort((x, y) => x.d - y.d);
    const out = [];
    for (let i = 0; i < scored.length && i < 3; i++) out.push(scored[i].c);
    return out;
  };
  const quote = (name) => '"' + name + '"';
  function missHint() {
    const miss = lastMiss;
    if (miss === undefined) return '';
    if (miss.name === undefined) {
      const near = nearest(miss.namespace, miss.candidates);
      return ' (tools.' + miss.namespace + ' is not a namespace of the catalog' +
        (near.length === 0 ? '' : '; the nearest are ' + near.map(quote).join(', ')) + ')';
    }
    const near = nearest(miss.name, miss.candidates);
    return ' (tools.' + miss.namespace + '.' + miss.name + ' is not a tool' +
      (near.length === 0 ? '' : '; the nearest in "' + miss.namespace + '" are ' + near.map(quote).join(', ') +
        ', called as tools.' + miss.namespace + '["' + near[0] + '"](args) or tools.call("' + miss.namespace + ':' + near[0] + '", args)') + ')';
  }
  function namespaceProxy(namespace, ids) {
    const made = create(null);
    const lookup = (name) => (typeof name === 'string' && hasOwn(ids, name) ? ids[name] : undefined);
    const proxy = (name) => {
      const id = lookup(name);
      if (id === undefined) {
        noteMiss(namespace, name, ownKeys(ids));
        return undefined;
      }
      return made[name] || (made[name] = (args) => call(id, args));
    };
    return new ProxyCtor(ids, {
      get: (_target, name) => proxy(name),
      getOwnPropertyDescriptor: (_target, name) => {
        const value = proxy(name);
        return value === undefined ? undefined : { value, enumerable: true, writable: false, configurable: true };
      },
      has: (_target, name) => lookup(name) !== undefined,
      ownKeys: (target) => ownKeys(target),
      set: refuse,
      defineProperty: refuse,
      deleteProperty: refuse,
      setPrototypeOf: refuse,
      preventExtensions: refuse,
    });
  }
  const index = JSONparse(toolIndexJson);
  for (const namespace of ownKeys(index)) {
    defineProperty(tools, namespace, fixed(namespaceProxy(namespace, index[namespace])));
  }
  freeze(tools);
  // Only reads are watched (for missHint); the frozen object underneath keeps every invariant.
  const toolsView = new ProxyCtor(tools, {
    get: (target, name) => {
      if (typeof name === 'string' && !hasOwn(target, name)) noteMiss(name, undefined, ownKeys(index));
      return target[name];
    },
  });

  function show(value) {
    try {
      if (typeof value === 'string') return value;
      if (value instanceof ErrorCtor) {
        const head = StringCtor(value.name) + ': ' + StringCtor(value.message);
        return typeof value.stack === 'string' && value.stack !== '' ? head + '\n' + value.stack : head;
      }
      if (typeof value === 'function') return '[Function ' + (value.name || '(anonymous)') + ']';
      if (typeof value === 'bigint') return StringCtor(value) + 'n';
      if (typeof value === 'object' && value !== null) {
        try {
          const json = JSONstringify(value);
          if (json !== undefined) return json;
        } catch {}
      }
      return StringCtor(value);
    } catch {
      return '[unprintable]';
    }
  }

  let logFull = false;
  function logger(level) {
    return function (...args) {
      if (logFull) return;
      let text = '';
      for (let i = 0; i < args.length; i++) {
        text += (i === 0 ? '' : ' ') + show(args[i]);
        if (text.length > maxLogChars) {
          text = sliceString(text, 0, maxLogChars);
          break;
        }
      }
      if (!hostLog(level, text)) logFull = true;
    };
  }
  const consoleObject = freeze({
    log: logger('log'),
    info: logger('info'),
    warn: logger('warn'),
    error: logger('error'),
    debug: logger('log'),
  });

  let lastTimer = 0;
  const activeTimers = create(null);
  function setTimeout(callback, delay, ...args) {
    if (typeof callback !== 'function') throw new TypeErrorCtor('setTimeout(callback, delay): callback must be a function');
    const id = ++lastTimer;
    const sleeping = hostSleep(+delay || 0);
    activeTimers[id] = true;
    (async () => {
      await sleeping;
      if (!activeTimers[id]) return;
      delete activeTimers[id];
      try {
        callback(...args);
      } catch (error) {
        consoleObject.error('Uncaught error in a setTimeout callback:', error);
      }
    })();
    return id;
  }
  function clearTimeout(id) {
    delete activeTimers[id];
  }

  defineProperty(globalThis, 'tools', fixed(toolsView));
  defineProperty(globalThis, 'console', { value: consoleObject, writable: true, configurable: true });
  defineProperty(globalThis, 'setTimeout', { value: setTimeout, writable: true, configurable: true });
  defineProperty(globalThis, 'clearTimeout', { value: clearTimeout, writable: true, configurable: true });

  return {
    compile(code) {
      return new AsyncFunction(code);
    },
    finish(value) {
      if (value === undefined) return 'null';
      const json = JSONstringify(value);
      if (typeof json !== 'string') throw new TypeErrorCtor('a ' + typeof value + ' is not JSON-serialisable');
      return json;
    },
    describe(error) {
      const out = create(null);
      out.name = '';
      out.message = '';
      try {
        if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
          const name = error.name;
          const message = error.message;
          const stack = error.stack;
          const code = error.code;
          out.name = name === undefined ? 'Error' : StringCtor(name);
          out.message = message === undefined ? show(error) : StringCtor(message);
          if (typeof stack === 'string') out.stack = cut(stack, 4000);
          if (typeof code === 'string') out.code = cut(code, 100);
        } else {
          out.message = show(error);
        }
      } catch {
        out.message = 'the program threw a value that cannot be described';
      }
      try {
        // A program that replaced a builtin the hint relies on loses the hint, not the error.
        if (out.name === 'TypeError' && /not a function|undefined/.test(out.message)) out.message += missHint();
      } catch {}
      out.name = cut(out.name, 200);
      out.message = cut(out.message, 4000);
      return JSONstringify(out);
    },
  };
})`;

/** Methods of `tools` a namespace cannot shadow (such tools stay reachable with `tools.call`). */
const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(['call', 'search', 'describe']);

/**
 * Groups tool ids for the typed proxies: `ns:name` (or `ns:name:version`, name `name:version`)
 * becomes `{ ns: { name: id } }`. Built on the host side, where it is cheap; ids without a
 * namespace and namespaces named like a `tools` method are left out.
 */
export function toolIndexJson(toolIds: readonly string[]): string {
  const index: Record<string, Record<string, string>> = Object.create(null);
  for (const id of toolIds) {
    if (typeof id !== 'string') continue;
    const colon = id.indexOf(':');
    if (colon <= 0 || colon === id.length - 1) continue;
    const namespace = id.slice(0, colon);
    const name = id.slice(colon + 1);
    if (RESERVED_NAMESPACES.has(namespace)) continue;
    index[namespace] ??= Object.create(null) as Record<string, string>;
    const space = index[namespace];
    if (!Object.hasOwn(space, name)) space[name] = id;
  }
  return JSON.stringify(index);
}
