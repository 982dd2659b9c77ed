import { z } from 'zod';
import { LoadedSource } from '../../catalog/loaded-source.js';
import { declaredToolName, groupByNamespace } from '../declared/declared-section.js';
import type { SourceDriver, SourceSection } from '../source-driver.js';
import { type CommandEntry, type CommandGroup, commandEntrySchema } from './command-entry.js';

function sourceId(namespace: string): string {
  return `command:${namespace}`;
}

/**
 * Programs declared in the config (`commands:`, keyed by tool name), one source per namespace,
 * each run without a shell through `spawnCommand`, in the OS sandbox as stdio servers are.
 */
export const COMMAND_DRIVER: SourceDriver<
  'command',
  SourceSection<'commands', Record<string, CommandEntry>, CommandGroup>
> = {
  kind: 'command',
  // The user wrote the command line: nothing a third party can change under the agent.
  trustGated: false,
  section: {
    name: 'commands',
    fields: {
      commands: z
        .record(declaredToolName(), commandEntrySchema)
        .default({})
        .describe('Programs as tools, run without a shell, keyed by tool name.'),
    },
    entries: (commands) => groupByNamespace('commands', commands),
    sourceId,
    create(namespace, group, context) {
      const id = sourceId(namespace);
      const load = async () => {
        const { loadCommandSource } = await import('./command-source.js');
        return loadCommandSource(group, {
          sourceId: id,
          baseDir: context.baseDir,
          log: context.log,
          ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
        });
      };
      return new LoadedSource(id, 'command', load, context.log);
    },
  },
};
