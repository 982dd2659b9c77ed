import { describe, expect, it } from 'vitest';
import { makeTool as baseMakeTool } from '../../test/support/test-tools.js';
import type { Tool } from '../foundation/tool.js';
import type { SearchIndex } from './search-index.js';

/** A tool for search tests: an empty description unless given, so only the named fields match. */
export function makeTool(overrides: Partial<Tool> & { id: string }): Tool {
  return baseMakeTool(overrides.id, { description: '', ...overrides });
}

function ids(index: SearchIndex, query: string, limit = 10): string[] {
  return index.search(query, { limit }).map((hit) => hit.id);
}

/**
 * The behaviour every {@link SearchIndex} must have. Call it from a `*.test.ts` file with a
 * factory returning a fresh, empty index.
 */
export function runSearchIndexContract(name: string, factory: () => SearchIndex): void {
  describe(`SearchIndex contract: ${name}`, () => {
    const corpus = (): SearchIndex => {
      const index = factory();
      index.upsert(makeTool({ id: 'github:create_issue', description: 'Open a new issue in a repository.' }));
      index.upsert(makeTool({ id: 'github:list_pulls', description: 'List pull requests of a repository.' }));
      index.upsert(
        makeTool({
          id: 'fs:read_file',
          description: 'Read a text file from disk.',
          inputSchema: {
            type: 'object',
            properties: { path: { type: 'string', description: 'Absolute location on disk' } },
          },
        }),
      );
      index.upsert(
        makeTool({
          id: 'mail:send',
          description: 'Deliver a message.',
          inputSchema: {
            type: 'object',
            properties: {
              recipientAddress: { type: 'string' },
              attachments: {
                type: 'array',
                items: { type: 'object', properties: { mimeType: { type: 'string' } } },
              },
            },
          },
        }),
      );
      index.upsert(makeTool({ id: 'calc:add', description: 'Add two numbers.', tags: ['math'] }));
      return index;
    };

    it('reports its strategy and size', () => {
      const index = corpus();
      expect(['lexical', 'bm25']).toContain(index.strategy);
      expect(index.size).toBe(5);
    });

    it('finds a tool by the words of its name', () => {
      expect(ids(corpus(), 'pulls')[0]).toBe('github:list_pulls');
      expect(ids(corpus(), 'read file')[0]).toBe('fs:read_file');
    });

    it('finds "create issue" as create_issue', () => {
      expect(ids(corpus(), 'create issue')[0]).toBe('github:create_issue');
      expect(ids(corpus(), 'createIssue')[0]).toBe('github:create_issue');
    });

    it('finds a tool by the words of its description', () => {
      expect(ids(corpus(), 'deliver message')).toEqual(['mail:send']);
      expect(ids(corpus(), 'disk')).toEqual(['fs:read_file']);
    });

    it('finds a tool by its parameter names, nested ones included', () => {
      expect(ids(corpus(), 'recipient address')).toEqual(['mail:send']);
      expect(ids(corpus(), 'mime type')).toEqual(['mail:send']);
      expect(ids(corpus(), 'path')).toEqual(['fs:read_file']);
    });

    it('finds a tool by its tags and namespace', () => {
      expect(ids(corpus(), 'math')).toEqual(['calc:add']);
      expect(ids(corpus(), 'github').sort()).toEqual(['github:create_issue', 'github:list_pulls']);
    });

    it('ranks an exact id or name first', () => {
      const index = factory();
      index.upsert(makeTool({ id: 'a:send', description: 'Send.' }));
      index.upsert(makeTool({ id: 'b:send_email', description: 'Send send send email, send it now.' }));
      expect(ids(index, 'send')[0]).toBe('a:send');
      expect(ids(index, 'b:send_email')[0]).toBe('b:send_email');
    });

    it('returns nothing for an empty, blank or stop-word query, or an unknown word', () => {
      const index = corpus();
      expect(index.search('', { limit: 10 })).toEqual([]);
      expect(index.search('   ', { limit: 10 })).toEqual([]);
      expect(index.search('the of and', { limit: 10 })).toEqual([]);
      expect(index.search('xylophone', { limit: 10 })).toEqual([]);
    });

    it('returns nothing for a limit of 0 and at most `limit` hits', () => {
      const index = corpus();
      expect(index.search('repository', { limit: 0 })).toEqual([]);
      expect(index.search('repository', { limit: 1 })).toHaveLength(1);
    });

    it('returns only positive scores, in descending order', () => {
      const hits = corpus().search('issue repository file read', { limit: 10 });
      expect(hits.length).toBeGreaterThan(2);
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    });

    it('breaks ties by id ascending, whatever the insertion order', () => {
      const index = factory();
      for (const ns of ['cc', 'aa', 'dd', 'bb']) {
        index.upsert(makeTool({ id: `${ns}:widget`, description: 'Turns a widget.' }));
      }
      const hits = index.search('turns widget', { limit: 3 });
      expect(hits.map((h) => h.id)).toEqual(['aa:widget', 'bb:widget', 'cc:widget']);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    });

    it('applies the filter before the limit', () => {
      const index = factory();
      for (let i = 0; i < 47; i++) {
        index.upsert(makeTool({ id: `ns:gadget_${String(i).padStart(2, '0')}`, description: 'A gadget.' }));
      }
      const weak = ['ns:weak_x', 'ns:weak_y', 'ns:weak_z'];
      for (const id of weak) {
        index.upsert(makeTool({ id, description: 'Something long about many other things; also a gadget.' }));
      }
      const all = ids(index, 'gadget', 100);
      expect(all).toHaveLength(50);
      expect(all.slice(-3).sort()).toEqual(weak);
      const filtered = index.search('gadget', { limit: 2, filter: (tool) => tool.name.startsWith('weak') });
      expect(filtered).toHaveLength(2);
      for (const hit of filtered) expect(weak).toContain(hit.id);
    });

    it('replaces a tool on upsert: the old text no longer matches', () => {
      const index = corpus();
      index.upsert(makeTool({ id: 'calc:add', description: 'Sum of integers.' }));
      expect(index.size).toBe(5);
      expect(ids(index, 'numbers')).toEqual([]);
      expect(ids(index, 'math')).toEqual([]);
      expect(ids(index, 'integers')).toEqual(['calc:add']);
    });

    it('removes a tool, and ignores unknown ids', () => {
      const index = corpus();
      index.remove('fs:read_file');
      index.remove('nope:nothing');
      expect(index.size).toBe(4);
      expect(ids(index, 'disk')).toEqual([]);
      expect(ids(index, 'read file')).not.toContain('fs:read_file');
      index.upsert(makeTool({ id: 'fs:read_file', description: 'Back on disk.' }));
      expect(ids(index, 'disk')).toEqual(['fs:read_file']);
    });

    it('stays correct when everything is removed and added again', () => {
      const index = corpus();
      for (const id of [
        'github:create_issue',
        'github:list_pulls',
        'fs:read_file',
        'mail:send',
        'calc:add',
      ]) {
        index.remove(id);
      }
      expect(index.size).toBe(0);
      expect(index.search('issue', { limit: 5 })).toEqual([]);
      index.upsert(makeTool({ id: 'x:issue_tracker', description: 'Tracks.' }));
      expect(ids(index, 'issue')).toEqual(['x:issue_tracker']);
    });
  });
}
