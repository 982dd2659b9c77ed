import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from 'quickjs-emscripten';

/** A compiled WebAssembly module (opaque here). */
type WasmModule = object;

/** The WebAssembly global: Node has it, but the project's libs (ES2023, no DOM) do not declare it. */
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
      compile(bytes: Uint8Array): Promise<WasmModule>;
    };
  }
).WebAssembly;

/** 64 KiB WebAssembly pages per MiB. */
const PAGES_PER_MB = 16;
/** The engine's baseline linear memory (16 MiB: the build's initial size). */
const BASE_PAGES = 16 * PAGES_PER_MB;
/** wasm32 cannot address more than 4 GiB. */
const MAX_PAGES = 65_536;
/** An instance whose memory grew past this is replaced after the run, so idle runners stay small. */
const RECYCLE_ABOVE_BYTES = 32 * 1024 * 1024;

/**
 * Owns the QuickJS WebAssembly module of one runner and hands out instances sized for a memory
 * limit.
 *
 * Why not just `runtime.setMemoryLimit`: in this build QuickJS cannot measure its allocations
 * (`malloc_usable_size` is unavailable under Emscripten), so the limit only rejects single huge
 * allocations; an array grown element by element sails past it up to the 2 GiB the module may
 * grow to. Each instance therefore gets its own `WebAssembly.Memory` whose `maximum` is the
 * baseline plus `memoryMb`: the WebAssembly engine refuses to grow past it, `malloc` returns NULL
 * and QuickJS throws a clean "out of memory". The compiled module is shared, so an instance costs
 * one instantiation (about 2–15 ms), not a compile.
 */
export class QuickJsEngine {
  private readonly compiled: Promise<WasmModule>;
  private cached: { memoryMb: number; instance: Promise<QuickJSWASMModule> } | undefined;

  constructor() {
    this.compiled = compileQuickJs();
  }

  /** Resolves once the WebAssembly is compiled (rejects when it cannot be loaded). */
  async ready(): Promise<void> {
    await this.compiled;
  }

  /** An instance whose memory cannot exceed the baseline plus `memoryMb`. Reused across runs. */
  acquire(memoryMb: number): Promise<QuickJSWASMModule> {
    if (this.cached?.memoryMb !== memoryMb) {
      this.cached = { memoryMb, instance: this.instantiate(memoryMb) };
      // A failed instantiation must not stick: the next run tries again.
      this.cached.instance.catch(() => {
        if (this.cached?.memoryMb === memoryMb) this.cached = undefined;
      });
    }
    return this.cached.instance;
  }

  /**
   * Called after each run. A broken instance (a WebAssembly trap mid-run leaves QuickJS in an
   * unknown state) or one that grew large is dropped and a fresh one prepared in the background.
   */
  release(instance: QuickJSWASMModule, memoryMb: number, broken: boolean): void {
    const grown = instance.getWasmMemory().buffer.byteLength > RECYCLE_ABOVE_BYTES;
    if (!broken && !grown) return;
    this.cached = undefined;
    this.acquire(memoryMb).catch(() => {});
  }

  private async instantiate(memoryMb: number): Promise<QuickJSWASMModule> {
    const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(memoryMb * PAGES_PER_MB));
    const wasmMemory = new wasm.Memory({ initial: BASE_PAGES, maximum });
    const variant = newVariant(RELEASE_SYNC, { wasmModule: await this.compiled, wasmMemory });
    return newQuickJSWASMModuleFromVariant(variant);
  }
}

/** Compiles the release-sync QuickJS build shipped inside the npm package (no download). */
async function compileQuickJs(): Promise<WasmModule> {
  // Resolve from quickjs-emscripten itself: the wasm package is its dependency, not ours.
  const fromHere = createRequire(import.meta.url);
  const fromQuickJs = createRequire(fromHere.resolve('quickjs-emscripten'));
  const wasmPath = fromQuickJs.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  return wasm.compile(await readFile(wasmPath));
}
