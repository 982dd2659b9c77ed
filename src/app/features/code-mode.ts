import type { CodeExecutor } from '../../composition/code/code-executor.js';
import { codeMode as buildCodeMode } from '../code-mode.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Code mode (`execute_code`), when enabled in the config. */
    code: CodeExecutor | undefined;
  }
}

/** Code mode on its sandbox runtime (`codeMode`); the sandbox is closed with the gateway. */
export const codeMode: FeatureFactory = (config, parts) => {
  const code = buildCodeMode(config.codeMode);
  parts.provide('code', code?.executor);
  return code ? { name: 'code-mode', close: code.close } : { name: 'code-mode' };
};
