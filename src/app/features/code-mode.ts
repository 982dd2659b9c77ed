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
  const { log } = parts.gateway;
  const code = buildCodeMode(config.codeMode, {
    settings: config.sandbox,
    warn: (reason) => log.warn({ reason }, 'code mode processes run without an OS sandbox: no engine here'),
  });
  parts.provide('code', code?.executor);
  return code ? { name: 'code-mode', close: code.close } : { name: 'code-mode' };
};
