import { Bm25Index } from './bm25-index.js';
import { LexicalIndex } from './lexical-index.js';
import { runSearchIndexContract } from './search-index.contract.js';

runSearchIndexContract('Bm25Index', () => new Bm25Index());
runSearchIndexContract('LexicalIndex', () => new LexicalIndex());
