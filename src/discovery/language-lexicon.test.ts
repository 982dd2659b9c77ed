import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { LanguageLexicon, LEXICON_LANGUAGES, type LexiconLanguage } from './language-lexicon.js';
import { DEFAULT_LANGUAGE_WEIGHT } from './search-defaults.js';
import { ToolSearch, type ToolSearchOptions } from './tool-search.js';

/** An issue tracker whose tools share their nouns, and a chat server beside it. */
function catalog(): Catalog {
  const catalog = new Catalog({ debounceMs: 0 });
  const tools = [
    makeSearchTool({ id: 'tracker:add_comment', description: 'Add a comment to an issue.' }),
    makeSearchTool({ id: 'tracker:delete_comment', description: 'Delete a comment of an issue.' }),
    makeSearchTool({ id: 'tracker:create_issue', description: 'Create an issue.' }),
    makeSearchTool({ id: 'tracker:list_issues', description: 'List the issues.' }),
    makeSearchTool({ id: 'chat:send_message', description: 'Send a message to a channel.' }),
    makeSearchTool({ id: 'chat:list_channels', description: 'List the channels.' }),
  ];
  catalog.replaceSource(
    's',
    tools.map((tool) => ({ tool, backend: { execute: async () => null } })),
  );
  return catalog;
}

async function first(query: string, options: ToolSearchOptions = {}) {
  const page = await new ToolSearch(catalog(), options).search({ query, limit: 3, explain: true });
  return page.hits[0];
}

/** "Add a comment to the issue", in each language of the lexicon. */
const ADD_A_COMMENT: Record<LexiconLanguage, string> = {
  es: 'añadir un comentario a la incidencia',
  fr: "ajouter un commentaire à l'anomalie",
  de: 'einen Kommentar zum Ticket hinzufügen',
  pt: 'adicionar um comentário ao chamado',
  it: 'aggiungi un commento alla segnalazione',
  nl: 'voeg een opmerking toe aan de melding',
  zh: '给问题添加评论',
  ja: 'イシューにコメントを追加',
  ko: '이슈에 댓글 추가',
  ru: 'добавить комментарий к задаче',
};

describe('the multilingual lexicon', () => {
  it('covers the ten languages of the issue', () => {
    expect([...LEXICON_LANGUAGES].sort()).toEqual([
      'de',
      'es',
      'fr',
      'it',
      'ja',
      'ko',
      'nl',
      'pt',
      'ru',
      'zh',
    ]);
  });

  for (const language of LEXICON_LANGUAGES) {
    it(`reads "add a comment" in ${language}, and explain names the language entries`, async () => {
      const hit = await first(ADD_A_COMMENT[language]);
      expect(hit?.tool.id).toBe('tracker:add_comment');
      const entries = hit?.explanation?.languages?.map((e) => `${e.language}:${e.entry}`) ?? [];
      expect(entries).toContain(`${language}:add`);
      expect(entries).toContain(`${language}:comment`);
      const add = hit?.explanation?.languages?.find((e) => e.entry === 'add');
      expect(add).toMatchObject({ language, kind: 'action', adds: ['add'] });
      // The English words count, at a weight below the query's own, in the BM25F explanation.
      expect(Object.keys(hit?.explanation?.lexical?.terms ?? {})).toEqual(
        expect.arrayContaining(['add', 'comment']),
      );
      // The verb stage settled on the tracker and preferred the tool that adds.
      expect(hit?.explanation?.verb).toMatchObject({ namespace: 'tracker', tool: ['create'], factor: 2 });
    });
  }

  it('finds nothing for those requests without the lexicon (what it adds)', async () => {
    expect(await first(ADD_A_COMMENT.es, { languages: [] })).toBeUndefined();
    expect(await first(ADD_A_COMMENT.ja, { languages: [] })).toBeUndefined();
  });

  it('reads only the languages of search.languages', async () => {
    const onlySpanish = { languages: ['es'] as LexiconLanguage[] };
    expect((await first(ADD_A_COMMENT.es, onlySpanish))?.tool.id).toBe('tracker:add_comment');
    expect(await first(ADD_A_COMMENT.fr, onlySpanish)).toBeUndefined();
  });

  it('strips inflections: plural nouns and other verb forms', () => {
    const lexicon = new LanguageLexicon();
    const entries = (query: string) => lexicon.expand(query).map((e) => `${e.language}:${e.entry}`);
    expect(entries('los comentarios')).toContain('es:comment');
    expect(entries('Dateien löschen')).toEqual(expect.arrayContaining(['de:file', 'de:delete']));
    expect(entries('supprimez les fichiers')).toEqual(expect.arrayContaining(['fr:delete', 'fr:file']));
    expect(entries('base de datos')).toEqual(['es:database']);
  });

  it('leaves words the catalog uses as they are (an English "map" is not a Dutch folder)', () => {
    const lexicon = new LanguageLexicon(['nl']);
    expect(lexicon.expand('maak een map').map((e) => e.entry)).toEqual(['create', 'folder']);
    expect(lexicon.expand('maak een map', (word) => word === 'map').map((e) => e.entry)).toEqual(['create']);
  });

  it('reads a Latin-script language only when the query shows it (English words are not German)', () => {
    const lexicon = new LanguageLexicon();
    // "and" would strip to ändern (de) and andare (it); "list" to lista: one word is no evidence.
    expect(lexicon.expand('list and find the planning files')).toEqual([]);
    expect(lexicon.expand('liste die Dateien auf').map((e) => `${e.language}:${e.entry}`)).toContain(
      'de:file',
    );
  });

  it('weights the English words below the query own words (DEFAULT_LANGUAGE_WEIGHT of theirs)', async () => {
    const search = new ToolSearch(catalog());
    const score = async (query: string) =>
      (await search.search({ query, limit: 1, explain: true })).hits[0]?.explanation?.lexical?.score ?? 0;
    const plain = await score('add comment');
    expect(plain).toBeGreaterThan(0);
    expect(await score('añadir un comentario')).toBeCloseTo(DEFAULT_LANGUAGE_WEIGHT * plain, 6);
    // A word the query already has counts once, at full weight.
    expect(await score('añadir un comentario add comment')).toBeCloseTo(plain, 6);
  });
});
