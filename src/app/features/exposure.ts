import { loadTokenCounter, type TokenCounter } from '../../foundation/ports/token-counter.js';
import type { FeatureFactory } from './feature.js';

/** The tokenizers of exposure `auto` and of the console's token meter. */
export interface ExposureCounters {
  /** What exposure `auto` counts tokens with; loaded at start in that mode only. */
  auto(): TokenCounter | undefined;
  /**
   * The tokenizer the console's token meter counts with: `auto`'s own when it loaded one for the
   * configured encoding, else loaded once on first use (a few MB: only when someone looks).
   */
  meter(): Promise<TokenCounter | undefined>;
}

declare module './feature.js' {
  interface PartTypes {
    exposure: ExposureCounters;
  }
}

/**
 * Exposure's tokenizer. Its tables are a few MB: loaded at start only when `exposure.mode` is
 * `auto`, and then only on the first count that neither the shipped nor the remembered counts
 * answer (token counts are remembered in the state store: a restart on the same catalog needs no
 * tokenizer). A reload applies to sessions opened after it; an open session keeps the exposure it
 * started with (its client was told its tools list shape at initialize).
 */
export const exposure: FeatureFactory = (config, parts) => {
  const memory = () => ({ store: parts.need('searchBacking').state });
  let auto: { encoding: string; counter: TokenCounter } | undefined;
  let meter: { encoding: string; counter: Promise<TokenCounter | undefined> } | undefined;
  const load = async (settings: typeof config.exposure) => {
    // New sessions read the exposure from the config committed after this; auto needs the tokenizer.
    if (settings.mode === 'auto' && auto?.encoding !== settings.encoding) {
      auto = { encoding: settings.encoding, counter: await loadTokenCounter(settings.encoding, memory()) };
    }
  };
  parts.provide('exposure', {
    auto: () => auto?.counter,
    meter: async () => {
      const { encoding } = parts.config().exposure;
      if (auto && auto.encoding === encoding) return auto.counter;
      if (meter?.encoding !== encoding) {
        meter = { encoding, counter: loadTokenCounter(encoding, memory()).catch(() => undefined) };
      }
      return meter.counter;
    },
  });
  return {
    name: 'exposure',
    start: () => load(config.exposure),
    reload: {
      exposure: async (next) => {
        await load(next.config.exposure);
        return undefined;
      },
    },
  };
};
