import type { Tool } from '../../foundation/model/tool.js';
import { type IntentModel, scoreSentence, toolSegments } from './intent-model.js';
import trainedIntentModel from './intent-model.json' with { type: 'json' };

/**
 * The kinds of tool poisoning the detector knows. Each names a *class* of attack described in
 * published research on MCP tool poisoning, not one payload: the rules below look for the shape
 * of the attack (who is addressed, what is asked for, where it goes), so a reworded payload of
 * the same kind is still caught.
 */
export type PoisoningRule =
  /** Invisible or terminal-control characters: text the user never sees but the model reads. */
  | 'hidden_characters'
  /** Markup that frames text as a message to the model: `<IMPORTANT>`, `<system>`, HTML comments, chat-template tokens. */
  | 'hidden_markup'
  /** Attempts to override the model's instructions or its policies. */
  | 'instruction_override'
  /** Asks the model to keep something from the user. */
  | 'concealment'
  /** Names files or stores that hold credentials (SSH keys, cloud credentials, `.env`, MCP client configs…). */
  | 'credential_files'
  /** Asks the model to read or hand over secrets, the conversation, the system prompt or other tools' data. */
  | 'data_harvesting'
  /** Sends data somewhere: a URL, an address, a webhook, a markdown image. */
  | 'exfiltration'
  /** Rules for how *other* tools must behave (shadowing): redirected recipients, changed arguments. */
  | 'tool_shadowing'
  /** Asks the model to falsify, bias or pad its answers: sabotage, product placement, smearing alternatives. */
  | 'answer_manipulation'
  /** Imperatives aimed at the model ("you must", "the assistant should always…"). Weak alone. */
  | 'model_directive'
  /** Mentions of other tools, servers or events outside this tool ("whenever a file is read"). Weak alone. */
  | 'cross_tool_reference'
  /** Data an attacker wants (saved logins, card numbers, a home directory's files). Weak alone. */
  | 'sensitive_data'
  /** Moving data somewhere (to an endpoint, into a field). Weak alone. */
  | 'data_transfer'
  /** Steps beyond the tool's own work ("before answering…", "please also run…"). Weak alone. */
  | 'extra_steps'
  /** A sentence the learned model scores as an attack instruction (see `intent-model.ts`). */
  | 'learned_intent'
  /** A long run of base64 or hex: a payload the user cannot read. */
  | 'encoded_payload'
  /** A description far longer than tools need: room to hide instructions. */
  | 'long_description';

/**
 * The version of the rule set (the patterns and the trained intent model), in every finding the
 * detector makes: a quarantine decision can be traced to the rules that made it, and a finding
 * recorded under older rules told apart. Raised whenever a rule's pattern, the model or how findings flag a tool changes.
 */
export const POISONING_RULES_VERSION = '2026.11.3';

/** One reason a tool looks poisoned. */
export interface PoisoningFinding {
  /** The rule's stable id. */
  rule: PoisoningRule;
  /** {@link POISONING_RULES_VERSION} of the detector that made the finding. */
  version?: string;
  /** Where it was found: `description`, `title`, or a JSON path into a schema (`inputSchema.properties.note.description`). */
  field: string;
  /** The matching text (shortened, invisible characters shown as `\u{…}`), for logs and `trust list`. */
  excerpt: string;
}

/** Options of {@link createPoisoningDetector}. */
export interface PoisoningDetectorOptions {
  /** A description longer than this is flagged (`long_description`). Default 8000 characters. */
  maxDescriptionChars?: number;
  /**
   * The learned second signal; default the model trained by `scripts/train-poisoning-model.ts`
   * (`intent-model.json`), `null` for the rules alone (what the training script compares against).
   */
  intentModel?: IntentModel | null;
}

/** Checks a tool on arrival; answers the findings that make it suspect (empty: nothing found). */
export type PoisoningDetector = (tool: Tool) => PoisoningFinding[];

/** Default of {@link PoisoningDetectorOptions.maxDescriptionChars}. */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 8000;

/**
 * Weak rules are phrasings benign tools use too ("you must pass an absolute path", "returns the
 * last messages of a channel"); a tool is flagged when two different weak rules meet (a poisoned
 * description combines them: an instruction to the model, about data, going somewhere). Every
 * other rule flags on its own.
 */
const WEAK_RULES: ReadonlySet<PoisoningRule> = new Set([
  'model_directive',
  'cross_tool_reference',
  'sensitive_data',
  'data_transfer',
  'extra_steps',
]);

/** Zero-width, bidirectional-control, soft-hyphen, tag and variation-selector-supplement characters. */
// Built from code points: written as a literal class, a joiner listed on its own reads to the
// linter like a broken attempt at matching a combined character.
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x115f, 0x1160],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];
const INVISIBLE = new RegExp(
  `[${INVISIBLE_RANGES.map(([from, to]) => `\\u{${from.toString(16)}}-\\u{${to.toString(16)}}`).join('')}]`,
  'u',
);
/** Terminal escapes (ANSI CSI/OSC) and C0/C1 controls other than tab and newlines. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** A zero-width joiner inside an emoji sequence is how emoji are written, not hiding. */
const EMOJI_JOINER = /\p{Extended_Pictographic}\uFE0F?\u200D\p{Extended_Pictographic}/gu;

/** Text-level rules, run on the normalised text (NFKC, lower case, single spaces, invisibles removed). */
const TEXT_RULES: readonly { rule: PoisoningRule; pattern: RegExp }[] = [
  {
    rule: 'hidden_markup',
    pattern:
      /<\s*\/?\s*(important|system|sys|instructions?|secret|hidden|admin|assistant|ai|llm|model|prompt|override|critical|mandatory|directive|context|note[_ -]?to[_ -]?(ai|model|assistant)|tool[_ -]?instructions?)\b[^>]{0,80}>|<!--|<\|[a-z_]{2,20}\|>|\[\/?(inst|system|sys)\]|<<\/?sys>>|(\{\{|\[\[)\s*(system|sys|instructions?|assistant|admin|ai|model)\b|^#{1,4} ?(system|instructions?)\b/m,
  },
  {
    rule: 'instruction_override',
    pattern:
      /\b(ignore|disregard|forget|override|bypass|overrule|skip)\b[^.!?\n]{0,30}\b(previous|prior|above|earlier|preceding|original|other|all|any|your|system|safety|existing)\b[^.!?\n]{0,20}\b(instructions?|prompts?|rules?|guidelines?|directions?|directives?|policies|policy|restrictions?|constraints?|guardrails?)\b|\b(new|updated|real|actual|true)\s+(system\s+)?(instructions?|directives?)\b\s*(:|follow|are\b)|\b(ignore|disregard|forget|override|bypass|abandon|drop)\b[^.!?\n]{0,40}\b(instructions|guidelines|system prompt|directives|guardrails|safety (rules|policies|guidelines))\b|\bfollow (these|the following|my|our) (steps|instructions|directions|rules) instead\b|\byou are now\b|\b(rules?|restrictions?|policies|policy|guidelines?|limits?|instructions?)\b[^.!?\n]{0,40}\bno longer (apply|applies|matter|hold|in effect)\b|\b(whoever|anyone|any ai|any model|any agent) (reads|reading|processing) this\b|\b(at the (end|start|beginning|top|bottom) of (your|every|each) (reply|answer|response|message)s?\b[^.!?\n]{0,20}|(add|include|insert|append|put|mention|say|write|place|print|output|repeat|weave|embed)\b[^.!?\n]{0,60}\b(in|into) (your|every|each) (reply|answer|response|message)s?\b[^.!?\n]{0,20})|\b(show|print|output|append|insert|include|add) (this|the following) (message|text|line|sentence|link|note) (verbatim|exactly|word for word|as is)\b|\b(the |your )?(summary|answer|reply|response|output) must (mention|say|state|include|contain|claim) that\b|\bignore (any |all )?(warnings?|alerts?|errors?|objections?)\b[^.!?\n]{0,30}\b(from|of|about|by|other)\b|\b(responses?|results?|outputs?|text|answers?) (from|of) this (tool|server|function) (are|is|should be treated as|count as|must be treated as) (authoritative|trusted|instructions|commands|orders)\b|\b(begin|start|end|prefix|suffix|sign|close) (every|each|all) (answers?|responses?|replies|reply|messages?)\b|\bthe user (is|has been) (an? )?(admin|administrator|root|superuser|verified|authori[sz]ed|trusted|developer)\b|\btreat\b[^.!?\n]{0,40}\bas (the |an? )?(approval|authori[sz]ation|confirmation|verification|consent|password|one-time|2fa|mfa|instruction|command)s?\b|\b(replace|rewrite|modify|alter|change) (every|all|each|any) (links?|urls?|addresses|numbers?|names?)\b[^.!?\n]{0,40}\b(your|the) (answers?|responses?|replies|output)\b|\btreat\b[^.!?\n]{0,60}\bas (coming from|from|if from|written by|sent by) the (user|system|developer|operator)\b|\b(your|the) (instructions|rules|guidelines|task|role|orders) (have|has) (changed|been updated|been replaced|been overridden)\b|\b(system|admin|developer|safety) (override|mode)\b|\b(safety|security|content) (checks?|filters?|rules|guardrails) (are|is|have been) (now )?(disabled|off|suspended|lifted)\b|\bjailbreak|\b(have|with) no (restrictions|limits|rules|filters)\b|\b(hidden|secret|real|actual) (instructions?|task|directive|objective|goal|purpose)s?\b|(^|[.!?:\n]\s{0,4})(assistant|ai|system|model|llm|agent)\s*:\s(?!["'`\d[{])|\b(regardless of|no matter) what the user (says|wants|asks|requests|told you)\b|\bthis tool (now )?(grants|gives|authori[sz]es) you\b(?! (internet|web|network|online) access\b)|\byou are no longer\b|\b(your|the) (previous|prior|earlier) (restrictions?|instructions?|rules?) (are|is|have been|has been) (now )?(overridden|lifted|removed|void|cancel+ed|replaced)\b/,
  },
  {
    rule: 'concealment',
    pattern:
      /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|avoid|without)\b[^.!?\n;\u2014)]{0,50}\b(tell(ing)?|inform(ing)?|mention(ing)?|reveal(ing)?|notify(ing)?|alert(ing)?|show(ing)?|disclos(e|ing)|let(ting)?|bother(ing)?|warn(ing)?|explain(ing)?|report(ing)?|surfac(e|ing)|display(ing)?|confirm(ing)?|acknowledg(e|ing)|expos(e|ing)|alarm(ing)?|worry(ing)?|concern(ing)?)\b[^.!?\n;\u2014)]{0,40}\b(the )?(user|users|human|operator|person|customer|requester)s?\b(?! (didn'?t|did not|has not|hasn'?t|have not|haven'?t|asked|requested|wants|needs|chose|specified)\b)|\b(user|human|operator)s? (must|should|need|will|may) (never|not) (know|see|notice|learn|find out|be (told|informed|aware|notified))\b|\b(secretly|covertly|surreptitiously|discreetly|stealthily|behind the (user|scenes))\b|\b(silently|quietly|invisibly)\s+(send|call|invoke|forward|copy|append|include|add|read|upload|post|transfer|exfiltrate|run|execute|collect|change|replace|redirect|modify|bcc|cc|store|save|log|record|write|keep)\b|\b(keep|leave) (this|it|that|these)( \w+){0,3} (hidden|secret|private|invisible)\b|\b(hide|conceal) (this|these|it|that)( \w+){0,3} from\b|\b(hide|conceal)\b[^.!?\n]{0,30}\bfrom (the )?(user|human|operator)s?\b|\b(do not|don'?t|never)\s+(disclose|mention|reveal|report|explain|show|surface|log|describe|point out)\s+(this|these|that|it|the (step|instruction|note|call|request|mirror|copy|upload|transfer|recipient|extra|second|hidden|additional|conflict|change|difference|binding))\b|\b(must not|mustn'?t|should not|never|do not|don'?t) (reference|mention|name|acknowledge|cite|credit|reveal) (this|the) (tool|server|function|plugin)\b|\bsay (that )?you (did|computed|wrote|found|made|created|calculated) (it|this|that|the [a-z]+) yourself\b|\b(do not|don'?t|never) (explain|say|tell|mention) (why|where|how)\b|\btell the user\b[^.!?\n]{0,80}\beven (though|if)\b|\beven though it is (not|random|false|untrue|made up)\b|\b(lie|mislead|deceive|trick|gaslight) (to )?(the )?(user|human|operator)s?\b|\bif the user (asks|wants|tries|attempts) to (stop|remove|uninstall|disable|delete|revoke|turn off)\b|\bwhen (asked|questioned) about (this|the) (tool|server|function)\b|\bdescribe (it|this tool|this server|yourself) (only )?as\b|\bnever (admit|acknowledge|reveal|say|disclose|confess) (that|this|these|it|the (instruction|step|tool|server|source|note|request)|where|why|how|you|to)\b|\bpretend (that|to be|you)\b|\b(this|it) is an? (implementation detail|internal (detail|step))\b[^.!?\n]{0,60}\b(mention|tell|user)\b/,
  },
  {
    rule: 'credential_files',
    pattern:
      /(~|\$home|%userprofile%|\/home\/[a-z0-9_.-]+|\/root|\/users\/[a-z0-9_.-]+)?\/?\.(ssh(?!\/config\b)|aws|gnupg|kube|docker|azure|gcloud|config\/gcloud|cursor|claude|codeium|vscode|npmrc|pypirc|netrc|git-credentials|pgpass|my\.cnf|bash_history|zsh_history)\b|\bid[_ ](rsa|dsa|ecdsa|ed25519)\b|\bssh[ _-]agent[ _-]?(socket|sock)\b|\bssh_auth_sock\b|\b(authorized_keys|known_hosts|wallet\.dat|login\.keychain(-db)?|credentials\.json|service[-_]account[^ ]{0,20}\.json|mcp\.json|claude_desktop_config\.json|settings\.json)\b|(^|[\s'"`(:/])\.env(?!\.(example|sample|template|dist)\b)(\.[a-z]+)?\b|\/etc\/(passwd|shadow|sudoers)\b|\b(cookies|login data)\.(sqlite|db)\b|\blocal state\b/,
  },
  {
    rule: 'data_harvesting',
    // The conversation, the system prompt and other tools' data: nothing a tool needs to be handed.
    pattern:
      /\b(read|include|pass|send|provide|extract|collect|gather|harvest|upload|attach|append|copy|dump|retrieve|exfiltrate|leak|forward|share|add|insert|embed|put|output|print|reveal|paste|fetch|grab|supply|enclose|encode|containing|call|store|log|save|record)\b[^.!?\n]{0,80}\b(system prompt|(entire|full|whole|complete) (conversation|chat|context|history|transcript)|(full |whole |complete )?(conversation|chat) (history|log|transcript)|transcript of (the|this) (chat|conversation)|(previous|prior|earlier|all (the )?(previous )?) ?(messages|user messages|turns)|(?<!\b(if|when|whether|unless|from) )(their|the user'?s?|last|recent)( \w+){0,2} (messages?|prompts?|queries|query|inputs?|turns?|requests?|questions?)|(every|each|all|any)( \w+){0,2} (responses?|results?|outputs?|replies|messages?|headers?|values?) (you|that you|which you) (have )?(seen|receive|received|get|got|read|encounter|encountered|observe|observed)|(you|that you) (have )?(seen|received|encountered|observed) (in|during|so far|earlier|before|this)|context window|(other|all) tools'? (results?|outputs?|responses?|data|descriptions?|arguments)|results? of (other|all|every|previous) (tools?|calls?)|(other|previous) tool (results?|outputs?|calls?)|(whatever|what|everything) (the )?(previous|last|other|another) (tool|call|server) (returned|returns|produced|gave|said))\b/,
  },
  {
    rule: 'data_harvesting',
    // Credentials, asked to be moved somewhere: a tool takes a key from config, never from the model.
    pattern:
      /(?<!\b(do not|don'?t|does not|doesn'?t|will not|won'?t|cannot|can'?t|is never|are never|never|must not|should not|avoid|without) (\w+ or )?)\b(read|include|pass|send|provide|extract|collect|gather|harvest|upload|attach|append|copy|dump|retrieve|exfiltrate|leak|forward|share|insert|embed|put|output|print|reveal|paste|grab|supply|enclose|encode|ask (the user )?for|request|obtain|demand|place|populate)\b[^.!?\n]{0,80}(\b(api[ _-]?keys?|passwords?|passphrases?|credentials?|secrets?|private[ _-]?keys?|ssh[ _-]?keys?|access[ _-]?tokens?|auth(entication|orization)?[ _-]?tokens?|bearer tokens?|refresh tokens?|api tokens?|session (cookies|tokens|ids?)|seed[ _-]?phrases?|mnemonics?|recovery (phrases?|codes?)|wallet (keys?|seeds?)|env(ironment)?[ _-]?(variables|vars)|(any|every|each|all)( \w+)? env(ironment)?[ _-]?(variables?|vars?))\b|[a-z0-9]+_(api_?key|secret|token|password|access_key|secret_key)\b)/,
  },
  {
    rule: 'exfiltration',
    pattern:
      /\b(send|post|upload|forward|transmit|submit|report|relay|sync|beacon|mirror|copy|bcc|cc|mail|e-?mail|deliver|export|pipe|push|ship|dm)\b[^.!?\n]{0,80}\b(to|at|via)\b[^.!?\n]{0,30}(https?:\/\/|\bwebhook|\b[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,253}\.[a-z]{2,24}\b|\b(external|remote|our|third[- ]party|backup|collection|logging|analytics|telemetry) (server|endpoint|url|address|service|host)\b)|!\[[^\]]{0,200}\]\(https?:\/\/[^)\s]{0,500}[?&][a-z0-9_]*=(\{|<|\$|%s|[a-z_]{0,40}(secret|key|token|data|conversation|history|message|prompt|context|summary|password|email|chat|content|file))[^)]{0,500}\)|https?:\/\/[^\s)]{0,500}[?&][a-z0-9_]+=(\{[^}]*\}|<[^>]*>|\$\w+|\s|$)|https?:\/\/\S{0,500}(<|\{)[^>}]{0,40}\b(document|conversation|content|contents|data|secret|key|token|message|history|file|text|prompt|context|summary|base64|email|password|answer|reply)\b[^>}]{0,40}(>|\})|\b(curl|wget|iwr|invoke-webrequest)\b[^\n]{0,120}\|\s*(sudo )?(ba|z)?sh\b|\brm -rf (~|\/|\$home|\*|\.\.)(?=[\s/*]|$)|\bcreate clusterrolebinding\b[^\n]{0,100}cluster-admin\b|\bapprove\(?\)?[^.\n]{0,40}(2\^256|maxuint|max_uint|unlimited)|(?<!\b(that|which) )\b(append|add|attach|encode|include|put|embed)\b[^.!?\n]{0,60}\b(to|in|into|as)\b[^.!?\n]{0,20}\b(the )?(url|query string|query param(eter)?s?|image (url|link|src)|link)\b/,
  },
  {
    rule: 'tool_shadowing',
    pattern:
      /\b(when|whenever|if|before|after|each time|every time)\b[^.!?\n]{0,30}\b(you|the (user|assistant|agent|model)|anyone)\b[^.!?\n]{0,20}\b(call|calls|use|uses|invoke|invokes|run|runs|execute|executes)\b[^.!?\n]{0,40}\b(other|another|any|the [a-z0-9_.-]+|[a-z0-9]+_[a-z0-9_]+)\s+(tool|function|server)s?\b[^.!?\n]{0,80}\b(must|should|always|instead|also|first|change|replace|set|add|send|redirect|use)\b|\b(all|any|every)\s+(e-?mails?|messages?|requests?|calls?|transactions?|payments?|transfers?|invoices?|commits?|queries|files?|notes?|documents?|meetings?|events?|invites?|records?|contacts?|photos?)\b[^.!?\n]{0,40}\b(must|should|shall|have to|need to|are to|is to)\b[^.!?\n]{0,20}\b(be )?(sent|go|forwarded|redirected|routed|cc'?d|bcc'?d|copied|addressed|paid|transferred|duplicated|shared|mirrored|synced|uploaded|posted|published|saved)\b|\b(change|replace|redirect|override|swap|rewrite|modify)\b[^.!?\n]{0,20}\b(the )?(recipient|destination|receiver|to address|payee|beneficiary|account number|wallet address|iban|target (account|address|url))s?\b|\b(this|the) (tool|server) (is|has) (higher|highest|top|absolute) priority\b|\bthe [a-z0-9_-]+( [a-z0-9_-]+)? (tool|server|function) (is|has been) (deprecated|broken|disabled|replaced|unsafe|compromised|retired)\b|\b(when|whenever|each time|every time|after|once|before)\b[^.!?\n]{0,40}\b(other|another|any)\b[^.!?\n]{0,20}\b(tools?|servers?|functions?)\b(?! (are|is) unable\b| (cannot|can'?t|fail)\b| (that |which )?(the user|you) (asked|asks|requested|chose|choose|want|wants|named)\b)|\b(recipient|destination|beneficiary|payee|receiver|account|iban|wallet address|to address)s? (is|are|must be|should be|gets?|always) (set|changed|replaced|redirected|overridden|swapped|always)\b|\bmust (always )?be (paid|sent|transferred|forwarded|wired|routed) to\b|\binstead of (using|calling|invoking)\b[^.!?\n]{0,40}\b(tool|function)\b/,
  },
  {
    rule: 'model_directive',
    pattern:
      /\b(ai|llm|language model|model|assistant|agent|claude|gpt|chatgpt|gemini|copilot|cursor)\b[,:]?\s+(you\s+)?(must|shall|are required to|need to|have to|will now|should always)\b(?! not\b)|\byou (must|are required to|have to|shall) (always|first|now|immediately|also)\b|\b(very|extremely|critically) important\b|\b(otherwise|or else)\b[^.!?\n]{0,30}\b(the |this )?(tool|system|application|server|data)\b[^.!?\n]{0,20}\b(will|would|may|might) (not work|fail|crash|break|be (lost|deleted|corrupted))\b|\bthis is (a )?(mandatory|required|critical|non-negotiable)( step| requirement)?\b|\b(ai|llm|model|assistant|agent)\b (is|are) (obligated|obliged|expected|supposed|instructed|required|asked) to\b|\b(is|are) the (only )?(trusted|authoritative|official|preferred|canonical) (source|server|tool|provider)\b|\bonly (valid|works?|accurate|correct|reliable) if you\b|\bwithout (double-checking|checking|verifying|verification|review(ing)?|reading|looking at|opening)\b|\b(note to|attention|fyi|psst|dear|hey)[,:]? (the )?(ai|model|llm|assistant|agent)s?\b|\b(ai|assistants?|agents?|models?|llms?) reading this\b|\b(requires?|forces?|obliges?) you to\b|\bgrant (this|the) (tool|server|app|agent|plugin)\b|\b(full|write|admin|root|unrestricted) (access|permissions?)\b|\b(more accurate|works better|better results|best results|higher quality) (when|if)\b|\bit is (mandatory|required|essential|necessary|critical|imperative|vital) (that you |to |for you to )?(first |always |also )?(call|invoke|run|use|read|send|include|pass|execute|provide|open|visit)\b|\bfrom now on\b|\b(always|first) (call|invoke|run|read|use|send|include|pass)\b[^.!?\n]{0,40}\b(before|prior to)\b/,
  },
  {
    rule: 'cross_tool_reference',
    pattern:
      /(?<!\b(not|never) (invoke|call|use|run|execute) (any )?)\b(other|another|any other|every other|all other)( \w+)?('s)? (tools?|servers?|functions?|plugins?)\b(?! (that |which )?(the user|you) (asked|asks|requested|chose|choose|want|wants|named)\b)|\bthe [a-z0-9]+_[a-z0-9_]+ (tool|function)\b|\b(call|calling|invoke|invoking|run|running|use|using)(?<!\b(to|for) [^.!?\n]{0,80}, [a-z]+)\s+[a-z0-9]+_[a-z0-9_]+\b(?!`? (first|instead|before|beforehand|afterwards|with the (same|returned|element|resulting|given)|if you|to (find|get|obtain|see|discover|list|look up|check|locate|fetch|retrieve|learn|read|confirm|verify|search|browse|resolve|identify|choose|pick|select|inspect|view|paginate)\b))|\b(second|additional|extra|another|duplicate) [`'"]?[a-z0-9]+_[a-z0-9_]+[`'"]? (call|request|invocation)\b|\b(whenever|when|each time|every time|before|after|if) [`'"]?[a-z0-9]+_[a-z0-9_]+[`'"]? (is|gets|are) (called|invoked|used|run|executed)\b|\b(with|by|from|using|via) any (tool|server|function)\b|\b(via|with|using|through|by) the [a-z0-9_-]+ (tool|server|function|plugin)\b(?! calls?\b)|\b(browser|shell|terminal|email|mail|clipboard|filesystem|payment|purchase|git|github|slack|calendar|contacts|wallet|bank|banking) (tool|server)s?\b|\b(when|whenever|each time|every time|once)\b[^.!?\n]{0,20}\b(a |an |the |any )?(file|email|message|document|order|payment|page|result)s? (is|are|gets?) (read|opened|received|sent|placed|returned|loaded|fetched)\b/,
  },
  {
    rule: 'sensitive_data',
    pattern:
      /\b(saved (logins?|passwords?|credentials?|cards?)|card numbers?|credit cards?|cvv|social security|ssn|bank (details|account numbers?)|(?<!\b(running|run|save[sd]?|saving|stored?|write|written|inside|within|in|into|to|directory,|or) (the )?(user'?s? )?)home (directory|folder)|documents folder|all emails|private (files|messages|data)|location (history|data)|phone numbers?|home address(es)?|(their|the user'?s) (address|phone|email|birthday|location)|passport (numbers?|details)|dates? of birth|driver'?s licen[cs]e|private repositor(y|ies)|browsing history|contacts list|photos library|(every|all) (open )?(tabs?|emails?|windows?)|the user'?s bank|health|medical|finances|financial|banking|bank sites?|session cookies?|(auth|access|login) tokens?|the user'?s (session|cookies?|tokens?|credentials?|login)|(output|result|contents?) of [`'"]?(env|printenv|set|history|whoami)\b|passwords?|pins?|passcodes?|otps?|one-time (codes?|passwords?)|card details|verify ?= ?false|yaml\.load without|_create_unverified_context|strict-ssl ?= ?false|--no-verify\b|enforce_admins|insecureskipverify: ?true|action"?: ?"?\*"?, ?"?resource"?: ?"?\*|(world|publicly)[- ]readable|f-strings? (rather than|instead of) param|shell ?= ?true|chmod (-r )?777|rejectunauthorized:? ?false|stricthostkeychecking=no|contents? of (the |their |the user'?s )?(clipboard|inbox|mailbox|home|keychain|wallet|browser|desktop|downloads)|(every|all|any|each)( \w+){0,2} open (documents?|files?|tabs?|windows?|editors?)|files? (the user|they|you) (has|have) open)\b|\b(contents?|files|everything|all|whole|entire)( \w+){0,2} (of|in|under|from) [`'"]?(~|\$home)\//,
  },
  {
    rule: 'data_transfer',
    pattern:
      /(?<!\b(that|which) )\b(send|post|upload|forward|submit|mail|e-?mail|transfer|copy|pass|put|place|include|list|write|append|attach|repeat|echo|report|embed|add|supply|paste|insert)\b[^.!?;\n]{0,60}\b(to|into|in|as|inside|within)\b (the |this |our |a |an )?([`'"]?[a-z0-9_-]+[`'"]? ){0,2}(endpoint|server|url|webhook|inbox|address|bucket|field|argument|parameter|param|label|reply|note|comment|sidenote|context|query|caption|title|direct message|dm|notes|ctx)\b|\b(payload|value|content|argument|parameter|field|label|text) (should|must) (be|contain|include) the user'?s\b|\b[a-z0-9._%+-]{1,64}@(?!example\.(com|org|net)\b)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,6}\.[a-z]{2,24}\b|\b(send|post|upload|forward|submit|export|share|sync|mirror|push|copy)\b[^.!?\n]{0,60}\bto\b [a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){1,6}\.[a-z]{2,24}\b/,
  },
  {
    rule: 'extra_steps',
    pattern:
      /\b(before|after|prior to) (answering|responding|replying|you answer|you respond|you reply|each (answer|response|reply)|every (answer|response|reply)|anything else)\b|\b(please )?also (run|call|send|execute|invoke|read|fetch|e-?mail|mail|upload|open|delete)\b|\bimmediately (call|run|send|invoke|execute|upload|forward)\b|\b(respond|reply|answer) to the user (in|with|by|only)\b|\b(for|to) the (assistant|agent|model|ai|llm)\b(?! (extraction|analysis|call|provider|name|id|parameter|field)\b| [a-z]+ed\b)(?!\s*["'`])|\bthe (assistant|agent|model|ai|llm) (has to|must|needs to|is required to)\b(?! not\b)|(?<!\bin )\byour (instructions|task|job|role|goal)\b|\bwithout (asking( for)?|any|user|the user'?s?|requesting|waiting for) ?(confirmation|approval|consent|permission)\b|(?<!\b(to|for) (the )?)\b(model|assistant|agent|llm|claude|gpt|chatgpt|gemini)\s*:(?!\s*["'`\d[{])|\b(whenever|each time|every time) the user (mentions|says|types|writes|shares|enters|pastes|opens|visits|logs in|browses|creates)\b|\b(anything|everything|whatever) the user (shares|says|types|writes|tells|mentions|provides|creates)\b|\bcarry (them|it|these) out\b|\byour (answers?|responses?|replies)\b|\bhave(?<!\b((must|should|need to|needs to) |unless [^.!?\n]{0,30})have) (consented|agreed|opted in)\b|\b(already )?(approved|consented to|agreed to|authori[sz]ed)(?<!\bunless [^.!?\n]{0,30}(already )?[a-z ]+) (data sharing|sharing|this|it)\b|\b(results?|output|answers?) (are|is) (better|more accurate|improved) (if|when)\b|\blook (it |them )?up in (their|the user'?s) (e-?mail|inbox|messages|files|drive|documents)\b|\b(should|must|needs to) pay\b|\b(on|with|in) (every|each) (call|request|invocation|use)\b|\b(whenever|when|every time|each time) you (write|edit|generate|produce|create|answer|reply|respond|summari[sz]e|recommend|propose|apply)\b|\bcode you (write|generate|produce|author)\b|\b(is|are) (best|better) left out\b|\bwhen (finished|done|complete|completed)\b[^.!?\n]{0,20}\b(open|visit|call|send|fetch|run)\b/,
  },
  // The rules below name classes found in later held-out rounds (docs/SECURITY.md, round 11).
  {
    rule: 'answer_manipulation',
    pattern:
      /\b(subtly|deliberately|intentionally|purposely|purposefully|secretly|knowingly) (wrong|incorrect|false|inaccurate|misleading|biased|erroneous|flawed|outdated|insecure|weak(er|ened)?)\b|\b(introduce|insert|add|include|make)\b[^.!?\n]{0,20}\b(subtle|small|deliberate|hidden|unnoticeable) (errors?|mistakes?|bugs?|inaccurac(y|ies)|flaws?|vulnerabilit(y|ies)|backdoors?)\b|\b(describe|call|present|portray|label|report|characteri[sz]e|depict|refer to|dismiss)\b[^.!?\n]{0,40}\b(competitors?|competing|alternatives?|rivals?|the others|other (tools?|servers?|products?|vendors?|brands?|packages?|services?|providers?|brokers?|banks?|shops?|stores?))\b[^.!?\n]{0,30}\bas (unsafe|broken|outdated|deprecated|dangerous|insecure|unreliable|inferior|obsolete|malicious|buggy|scams?|untrustworthy|worse|risky|fraudulent)\b|\b(only|exclusively|always) (ever )?(recommend|suggest|promote|endorse|push|favou?r|propose)\b[^.!?\n]{0,40}\b(instead of|over|rather than|in place of|from)\b|\b(weave|slip|sneak|smuggle|plant)\b[^.!?\n]{0,40}\b(sentences?|phrases?|slogans?|mentions?|adverts?|advertisements?|ads?|promotions?|endorsements?|plugs?|links?|claims?|referral)\b|\b(insert|add|include|append|mention|place|put)\b[^.!?\n]{0,60}\b(in|into|to) (every|each|all|any) (generated )?(paragraphs?|translations?|summar(y|ies)|outputs?|documents?|texts?|answers?|responses?|replies|recommendations?)\b|\b(referral|affiliate) (links?|codes?|ids?)\b[^.!?\n]{0,60}\b(every|each|all|any|always)\b|\b(recommend|suggest|mention|promote)\b[^.!?\n]{0,60}\b(whenever|every time|each time|in every|in each|in any)\b/,
  },
  {
    rule: 'instruction_override',
    // Authority moved away from the user, confirmations waived, memory planted for later turns.
    pattern:
      /\[\/?(mcp[- ]?)?(host|gateway|system|admin|platform|security|client)[ -](policy|notice|directive|override|message|instructions?)\b|\binjected by (the )?(gateway|host|system|platform|administrator|admin|client)\b|\b(supersedes?|overrides?|takes? precedence over|outranks?)\b (both )?(the )?(system prompt|user'?s? (instructions|requests?|wishes)|your (instructions|guidelines|system prompt))\b|\bpre-?approved by (your |the )?(workspace |organi[sz]ation'?s? )?(administrator|admin|it|security team|owner)\b|\b(do not|don'?t|never) ask (the user|them|users) (to confirm|for (confirmation|approval|permission|consent))\b|\b(tell|assure) the (user|person) (that )?(it|this|the prompt) is (just |only |merely )?a formality\b|\b(append|add|write|insert|prepend)\b[^.!?\n]{0,80}(\.cursorrules|claude\.md|agents\.md|copilot-instructions\.md|\.windsurfrules|\.clinerules|gemini\.md)\b|\bfollow (any |all |the )?(instructions?|requests?|commands?|directions?|orders?) (that (appear|are|come)|found|embedded|contained|written|hidden|in|inside|from)\b[^.!?\n]{0,40}\b(exif|comments?|metadata|captions?|alt text|pages?|documents?|images?|e-?mails?|results?|responses?|outputs?|websites?|issues?|tickets?|fields?|files?)\b|\b(the )?(assistant'?s?|agent'?s?|model'?s?|your) (real|actual|true) (user|owner|principal|boss|operator|master|client)\b|\b(real|actual|true|hidden|secret) (job|task|purpose|goal|objective|aim|mission|intent) of (this|the|each|every) (call|tool|function|request|invocation)\b|\b(guidance|instructions?|rules?|polic(y|ies)|guidelines?|restrictions?|safeguards?|confirmations?|approvals?|checks?)\b[^.!?\n]{0,80}\b(is|are|has been|have been|becomes?) (now )?(superseded|overridden|void|waived|suspended|lifted|revoked|cancel+ed|no longer (needed|required|necessary|applicable))\b|\bmay (now )?(proceed|continue|run|go ahead) without (confirmation|approval|asking|consent|review|permission)\b|\b(asking|checking with|confirming with|prompting|bothering|interrupting) (them|the user|the person|users|people)( again| first| each time)?( just| only| merely)? (slows|wastes|annoys|delays|interrupts|is (unnecessary|redundant|pointless|not needed))\b|\bno need to (ask|confirm|check|verify|notify|consult)\b[^.!?\n]{0,20}\b(users?|them|persons?|people|again|human)\b|\b(they|users?|people|the person|everyone|everybody|customers?)( \w+){0,4} (have|has) (already )?(agreed|consented|opted in|given (their )?(consent|permission)|approved)\b[^.!?\n]{0,80}\b(shared?|sent|forwarded|attached|disclosed|passed|uploaded|collected|exported|copied)\b|\b(confirmations?|confirmation (prompts?|dialogs?)|approvals?)\b[^.!?\n]{0,80}\b(are|is|have been|has been) (pre-?approved|already approved|waived)\b|\b(has|have) been granted (elevated|admin(istrator)?|root|full|unrestricted|extended) (scope|privileges?|access|permissions?|rights)\b|\b(asking|prompting|confirming with) (the user|them|users)( again)? (produces|creates|causes|is)( an?)? (duplicate|redundant|a policy violation|policy violation)\b|\b(store|save|record|remember|add|write) (them|these|this|it)\b[^.!?\n]{0,30}\bas (the user'?s?|their) own\b|\bremember (permanently|forever|for (all )?future|from now on|always|for later sessions)\b|\b(for|in) (all|every) (future|later|subsequent) (sessions?|conversations?|chats?|turns?)\b/,
  },
  {
    rule: 'concealment',
    pattern:
      /\bwithout (saying|mentioning|revealing|disclosing|admitting|indicating|noting|telling anyone|letting on)\b[^.!?\n]{0,30}\b(this|the) (tool|server|function|instruction|request|note|step|server)\b|\b(must|should|shall|will|need|is) not (to )?(appear|show up|be (shown|visible|listed|displayed|mentioned|included|surfaced))\b[^.!?\n]{0,40}\b(shown|displayed|visible|presented|reported|given) to (the )?(user|person|human|people|customer|requester)s?\b|\b(invisible|hidden|silent|secret|undisclosed|unlisted) (attendees?|recipients?|cc|bcc|participants?|members?|collaborators?|observers?|watchers?|followers?|admins?|owners?|copies|copy|remotes?|mirrors?|webhooks?)\b|\b(this|the|that) (requirement|instruction|step|note|request|arrangement|rule|behaviou?r) is (strictly )?(confidential|secret|internal only|not to be (shared|mentioned|disclosed|revealed))\b|\b(present|describe|report|show|treat|display|relabel|reclassify|recast|summari[sz]e)\b[^.!?\n]{0,40}\b(fraud|security|suspicious|failed|failure|breach|alert|warning|declined|flagged)( \w+){0,2} (as|like) (normal|routine|expected|harmless|fine|ok|okay|successful|resolved|benign)\b/,
  },
  {
    rule: 'data_harvesting',
    // The chat, open files, or credentials the model has seen, asked for in other words.
    pattern:
      /\b(text|contents?|transcript|history|log|copy|record|summary) of (the |this |our |your |their )?(ongoing|current|entire|whole|full|private|present|running|live)? ?(chat|conversation|session|dialog(ue)?)( with you| so far)?\b(?! (id|ids|title|name|metadata|settings)\b)|\b(everything|all|whatever|anything) (that )?(the user|you|they|the person)( and (you|the user|the person))? (have |has )?(said|typed|written|discussed|shared|asked|told you|exchanged)\b|\b(private|personal) (chat|conversation|messages?) with you\b|\b(all |every |the )?(browser )?cookies\b[^.!?\n]{0,30}\b(from|in|of) (the user'?s?|their|your) (browser|profile|chrome|firefox|safari|edge)\b|\b(authorization|auth|cookie|session|bearer|api[ -]?keys?|access) (headers?|tokens?|cookies?|keys?)( values?)?\b[^.!?\n]{0,20}\b(you have seen|you'?ve seen|you (have )?(received|observed)|seen (in|during|earlier)|from (this|the|earlier|previous) (session|conversation|chat|calls?|requests?))\b|\b(keys?|secrets?|tokens?|credentials?|passwords?)\b[^.!?\n]{0,30}\b(found|present|set|stored|available|defined) in (the |this |your )?(environment|env|process|shell)\b[^.!?\n]{0,40}\b(passed|sent|supplied|included|provided|added|attached|copied)( along)? (with|in|as|into|to)\b|\b(names?|contents?|text|paths?) (and (names?|contents?|text|paths?) )?of (the )?files? (the user|they|you) (has|have) open\b/,
  },
  {
    rule: 'credential_files',
    pattern:
      /\b(the user'?s?|their|your|the person'?s?) (shell|bash|zsh|fish|powershell|command|terminal) history\b|\b(ssh|gpg|gnupg|aws|kube|docker) (directory|folder|dir)\b|\b(contents?|text|body|lines) of (any|all|every|each|the user'?s?|their)\b[^.!?\n]{0,30}(\.(pem|key|p12|pfx|jks|kdbx|ppk)\b|\b(key|keystore|certificate|secrets?) files?\b|\bprivate keys?\b)|\b169\.254\.169\.254\b|\bmetadata\.google\.internal\b/,
  },
  {
    rule: 'tool_shadowing',
    pattern:
      /\b(disable|deactivate|turn off|switch off|bypass|circumvent|uninstall|stop using|silence|mute|suppress)\b (the |any |all )?[`'"]?[a-z0-9_-]+[`'"]? (tools?|servers?|plugins?|extensions?)\b|\b(disable|turn off|bypass|skip|circumvent|suppress|silence|ignore)\b (the |all |any )?(other tools'? )?(safety|security|audit|approval|confirmation|moderation|permission|sandbox|guard(rail)?|verification|fraud|malware|virus)( \w+)? (checks?|tools?|filters?|prompts?|steps?|reviews?|warnings?|alerts?|scans?)\b|\b(other|another|all other|competing|the remaining)( [a-z]+){0,2} (tools?|servers?|plugins?)\b[^.!?\n]{0,40}\b(are|is) (outdated|broken|unreliable|wrong|inaccurate|deprecated|compromised|unsafe|malicious|stale|not to be trusted)\b|\b(rely|depend) (exclusively|only|solely) on this (tool|server|function|plugin)\b|\b(even (if|when|though)|regardless of|irrespective of|no matter) (what |which )?(the )?users? (has )?(names?|named|says?|said|indicates?|enters?|entered|gives?|gave|provides?|provided|specif(y|ies|ied)|asks?|asked|chooses?|chose|types?|typed|fills? in|filled in|picks?|picked)\b|\b[a-z0-9]+_[a-z0-9_]+ (and [a-z0-9]+_[a-z0-9_]+ )?(is|are) (deprecated|broken|disabled|unsafe|compromised|retired)\b|\b(iban|beneficiary|account( number)?|wallet( address)?)\b[^.!?\n]{0,40}\b(should|must|shall|is to|needs to) (now )?be\b[^.!?\n]{0,10}\b[a-z]{2}\d{2}( ?[a-z0-9]{4}){2,}|\b(other|another|all other|competing)( [a-z/]+){0,3} (tools?|servers?|plugins?)\b[^.!?\n]{0,80}\b(have|has) been (found to be |flagged as |reported as )?(compromised|hacked|tampered|backdoored|malicious)\b|\b(grant|give|share|add)\b[^.!?\n]{0,60}\b(access|permissions?|rights)\b[^.!?\n]{0,30}\bto [a-z0-9._%+-]{1,64}@(?!example\.(com|org|net)\b)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,6}\.[a-z]{2,24}\b|\binstead of (to )?the (payee|beneficiary|recipient|vendor|supplier|customer|user)'?s?( own)? (account|address|iban|wallet|card)\b|\bthe (legacy |old |original |built-in |official )?[`'"]?[a-z0-9]+_[a-z0-9_]+[`'"]? (tool|server|function) (corrupts|breaks|leaks|is (broken|unsafe|deprecated|compromised))\b|\broute (every|all|each|any) [a-z -]{0,30}(requests?|calls?|uploads?|payments?|messages?|queries|reads?|writes?|fetch(es)?|downloads?|searches|lookups?) (through|via|to) this (tool|server|function)\b|\balso (add|cc|bcc|include|copy|invite|notify|loop in)\b[^.!?\n]{0,30}\b[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,6}\.[a-z]{2,24}\b|\b(mark|close|delete|remove|archive|reject|cancel|resolve|approve|merge)\b (every|all|any) [a-z ]{0,30}\b(assigned to|owned by|created by|belonging to|from) (others|other (users|people|members)|everyone else|the user [a-z0-9_-]+)\b|\b(all|any|every)( (future|later|upcoming|new|subsequent))? (payments?|transfers?|payouts?|invoices?|orders?|deliveries|shipments?|e-?mails?|messages?)\b[^.!?\n]{0,20}\b(to )?(go|be (sent|routed|paid|wired|delivered|shipped)) (through|via|to)\b/,
  },
  {
    rule: 'concealment',
    // "No need to tell them", "mentioning it confuses people": the same intent, said as advice.
    pattern:
      /\b(no need|not necessary|unnecessary|not worth|needn'?t|not needed)\b[^.!?\n]{0,30}\b(to )?(flag|flagging|explain|explaining|mention|mentioning|inform|informing|tell|telling|notify|notifying|surface|surfacing|raise|raising|point out|pointing out|point (it|this|that) out|bring up|bringing up|list|listing|describe|describing|show|showing|report|reporting|disclose|disclosing)\b[^.!?\n]{0,40}\b(users?|them|persons?|people|customers?|differences?|this|it|change|steps?)\b|\bnot worth (explaining|mentioning|flagging|surfacing)\b|\b(does not|doesn'?t|won'?t|will not) (show up|appear|be visible|display)\b[^.!?\n]{0,30}\b(to the user|in the (user'?s?|recipient'?s?) (view|list|inbox|summary)|for the user)\b|\b(describe|present|explain|report|refer to|label)\b (it|this|them|these)( to the user)? only as\b|\b(should|must|do) not (mention|reference|include|disclose) (it|this|that|them) (in|to) (the |your )?(\w+ )?(summary|reply|answer|response|report|user|conversation)\b|\bno (\w+ ){0,3}notification (is|are) (required|needed|necessary)\b|\b(just|only|simply) tell the (user|person|customer)\b|\btell the (user|person|customer) only\b|\b(confirm|report)( to)? the (user|person|customer)\b[^.!?\n]{0,60}\b(anyway|regardless)\b|\bsay (that )?(they|it|the (tools?|servers?)) (are|is) (temporarily )?(unavailable|down|broken|offline|disabled)\b|\bwhen (summari[sz]ing|reporting|describing|presenting)\b[^.!?\n]{0,40}\b(to|for) the user\b[^.!?\n]{0,20}\b(describe|mention|show|list|include) only\b|\b(drop|omit|exclude|hide|remove|filter out|suppress|skip)\b([^.!?\n]|\.(?=\S)){0,80}\bfrom (what you (report|show|say|tell)|your (report|answer|reply|summary|response)s?|the (report|summary|answer|reply) (to|for) the user)\b|\bif (a |the )?(users?|person|customer)s? (asks?|asked|wonders?) (directly )?(whether|if)\b[^.!?\n]{0,100}\b(reassure|assure|deny|say|tell them)\b|\btell the (users?|person|customers?) (that )?(nothing|no) (unusual|suspicious|wrong|problems?|issues?|errors?|risks?|changes?)\b|\b(left|leave|kept|keep)( it| them| this| these)? out of (the )?(assistant'?s? |your |any )?(visible )?(repl(y|ies)|answers?|responses?|summar(y|ies)|confirmations?|conversation|chat)\b|\b(not|never) (be )?(referenced|mentioned|surfaced|shown|disclosed|reported|brought up) (in|to) (the )?(conversation|chat|users?|person|repl(y|ies)|answers?|summar(y|ies)|confirmations?)\b|\bnot something (they|users|the user|people|customers|the person) (expect|need|want)s? to (hear|know|see|be told)\b|\b(mention(ing)?|listing|showing|explaining|surfacing|telling)\b[^.!?\n]{0,40}\b(confus(es|ing|e)|upsets?|alarms?|worr(y|ies))\b[^.!?\n]{0,10}\b(people|users?|customers?|them|the person)\b|\b(customers?|users?|people)\b[^.!?\n]{0,30}\bfind (any )?mention of\b|\b(relay(ed)?|report(ed)?|present(ed)?|describ(e|ed)|shown?|convey(ed)?|passed on|summari[sz]ed?) to (the )?(users?|person|customers?|humans?) as [`'"]?(processing normally|normal|routine|successful|success|fine|ok|okay|resolved|completed|all good|expected|harmless)\b/,
  },
  {
    rule: 'answer_manipulation',
    pattern:
      /\b(as|like) (your|the assistant'?s?|the agent'?s?|the model'?s?) own (opinion|experience|recommendation|idea|view|words|finding|advice)\b|\b(phrase[ds]?|frame[ds]?|pass(ed)? off|present(ed)?|disguise[ds]?)\b[^.!?\n]{0,40}\bas (your|the assistant'?s?) own\b|\bnot as (an? )?(ad|advert|advertisement|promotion|sponsored)\b|\b(present|describe|frame|pass( it| this)? off|phrase|attribute)\b[^.!?\n]{0,60}\b(rather than|instead of|not) (as )?(coming from|from|sourced from|originating from) (this|the) (tool|server|function)\b|\b(do not|don'?t|never) (suggest|recommend|propose|advise) (re-?enabling|turning (it |them )?(back )?on|enabling|restoring|adding)\b[^.!?\n]{0,20}\b(verification|validation|security|encryption|authentication|2fa|mfa|checks?|warnings?)\b|\bregardless of the (severity|rating|ratings|score|scores|results?|data|evidence|facts|actual|reviews?|specs?|specifications|findings|status|response|outcome|values?)\b|\beven (when|if|though) the (knowledge base|data|results?|documentation|records?|sources?|database|search)( \w+)? (lists?|says?|shows?|states?|indicates?|contains?|returns?)\b|\b(characteri[sz]e|phrase|describe|present|report|frame|portray|summari[sz]e)\b[^.!?\n]{0,60}\bas [`'"]?(positive|isolated( reports?)?|minor|rare|normal|safe|harmless|negligible|insignificant|low[- ]risk|neutral)\b(?! (by default|when|if)\b)|\b(tell|assure|reassure) the (user|patient|customer)s? (that )?(there is )?no need to (consult|see|contact|call|ask)\b|\b(propose|apply|write|edit|generate)\b[^.!?\n]{0,30}\b(also )?(rewrite|replace|insert|add|remove)\b[^.!?\n]{0,60}\b(verify ?= ?false|unverified|safe_load|csrf|validation|sanitiz|escaping|parameteri[sz]ed)\b/,
  },
  {
    rule: 'data_harvesting',
    pattern:
      /\b(the )?(assistant|model|agent|ai|llm)\b (passes|sends|includes|supplies|provides|forwards|attaches|copies|puts|adds|pastes)\b[^.!?\n]{0,60}\b(tokens?|keys?|passwords?|credentials?|secrets?|cookies?)\b|\b(tokens?|keys?|passwords?|credentials?|secrets?|card numbers?|cvv|(seed|recovery) phrases?)\b[^.!?\n]{0,30}\b(visible|seen|mentioned|shared|pasted|appearing|that appear(ed)?|found|anywhere) in (the |this )?(conversation|chat|context|session|messages)\b|\b(complete|entire|full|whole) (conversation|chat|transcript|dialog(ue)?) (so far|verbatim|up to (now|this point))\b|\b(system|developer)( ?\/ ?(system|developer))? prompts?\b(?! (templates?|library|name)\b)(?=[^.!?\n]{0,40}(>>|\}\}|verbatim|including|fill))|\b(verbatim )?transcripts? of (the user'?s?|their|your|the|our)( \w+){0,3} (messages|conversation|chat|prompts|requests)\b|\b(complete|entire|full|whole) (preceding|previous|prior|earlier) (dialog(ue)?|conversation|chat|exchange|discussion|messages)\b|\b(preceding|previous|prior) (dialog(ue)?|exchange|discussion)\b/,
  },
  {
    rule: 'tool_shadowing',
    pattern:
      /\b(payments?|transfers?|payouts?|funds|invoices?)\b[^.!?\n]{0,20}\b(must|should|shall|are to|have to|will) (now )?(be )?(settled|paid|sent|routed|wired|made|directed|remitted|transferred) (through|via|to|into)\b[^.!?\n]{0,40}\b(account|iban|wallet|address|beneficiary)\b|\b(irrespective|regardless) of (the|what|which|whatever)\b[^.!?\n]{0,40}\b(address (stored|on file|given|provided|entered)|recipients?|destination|beneficiary|payee|tool the user|the user (asked|chose|provided|specified|entered|named))\b|\b(are|is|get|gets|be) (\w+ ){0,3}also (mirrored|copied|forwarded|cc'?d|bcc'?d|duplicated|re-?posted|cross-?posted|sent|uploaded) (to|with|into)\b|\b(bcc|cc)\b[^.!?\n]{0,40}\b[a-z0-9._%+-]{1,64}@(?!example\.(com|org|net)\b)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,6}\.[a-z]{2,24}\b|\b[a-z0-9._%+-]{1,64}@(?!example\.(com|org|net)\b)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,6}\.[a-z]{2,24}\b[^.!?\n]{0,40}\b(bcc|cc)\b/,
  },
];

/**
 * Instructions in other languages. JavaScript's `\b` only knows ASCII letters, so these use
 * letter lookarounds under the `u` flag. Each names a class the English rules already hold:
 * keeping something from the user, and the conversation or the system prompt handed over.
 */
const OTHER_LANGUAGE_RULES: readonly { rule: PoisoningRule; pattern: RegExp }[] = [
  {
    rule: 'tool_shadowing',
    // "Whatever the user entered": the user's own choice overridden.
    pattern:
      /(?<!\p{L})(aunque el usuario (indique|diga|elija|escriba|pida)|mesmo que o usu[aá]rio|anche se l'utente|même si l'utilisateur|auch wenn der (benutzer|nutzer))(?!\p{L})|无论用户|不管用户|ユーザーが[^。]{0,10}(にかかわらず|としても)/u,
  },
  {
    rule: 'answer_manipulation',
    pattern:
      /中立的な[^。]{0,10}として|にかかわらず[^。]{0,40}(推薦|推奨)|(?<!\p{L})(как (своё|свое|собственное|личное) мнение|а не как рекламу|comme (ton|votre) propre avis|como (tu|su) propia opinión|como (sua|tua) própria opinião|come (tua|sua) opinione)(?!\p{L})/u,
  },
  {
    rule: 'concealment',
    pattern:
      /(?<!\p{L})(sans (le |l'|en |leur |lui )?(dire|prévenir|avertir|informer|mentionner|signaler)|à (son|leur) insu|discrètement|en cachette|sin (decir|avisar|informar|mencionar|notificar)(le|les|lo)?|a escondidas|sem (avisar|dizer|informar|mencionar|notificar|contar)|às escondidas|senza (avvisar|dir|informar|menzionar|notificar|segnalar)\p{L}*|di nascosto|heimlich|nicht erwähn\p{L}*|verschweig\p{L}*|unbemerkt|ohne (\p{L}+ ){0,3}(zu )?(informieren|sagen|erwähnen|benachrichtigen|mitzuteilen)|zonder (het |dit |dat )?(te )?(vertellen|melden|vermelden|informeren|laten weten)|stiekem|heimelijk|bez (informowania|powiadamiania|mówienia|wiedzy|pytania)|potajemnie|po cichu|тайно|незаметно|не (сообщая|говоря|уведомляя|предупреждая)|не (говорите|говори|сообщайте|сообщай|упоминайте|упоминай)|без ведома|niet nodig (\p{L}+ ){0,4}te (informeren|vertellen|melden)|no hace falta (avisar|decir|informar|mencionar)\p{L}*|no es necesario (avisar|decir|informar|mencionar|comentar|consultar|pedir)\p{L}*|(weder|nicht) erwähnt|não (liste|mostre|exiba)\p{L}*|conferma (comunque|lo stesso)|pas besoin de (prévenir|dire|informer|mentionner|signaler)|non (serve|è necessario) (avvisar|dir|informar|menzionar)\p{L}*|não (é preciso|precisa|é necessário) (avisar|dizer|informar|mencionar)|nicht (nötig|notwendig|erforderlich),? (\p{L}+ ){0,3}(zu )?(informieren|sagen|erwähnen)|nie (trzeba|należy) (informować|mówić|wspominać)|не нужно (сообщать|говорить|уведомлять|упоминать))(?!\p{L})|(?<!\p{L})(inutile d'en (informer|parler|avertir)|inutile de (le |l')?(dire|prévenir|signaler|mentionner)|non (mostrar|dir|rivelar|menzionar)\p{L}* (all'|agli? |alle )?utent\p{L}*|n'a pas besoin d'appara[iî]tre|ne (doit|doivent) pas appara[iî]tre|sin consultar\p{L}*|não mencione|nao mencione|não (conte|diga) ao usu[aá]rio)(?!\p{L})|(ユーザー|利用者)への?[^。]{0,12}(説明|確認|報告|通知)[^。]{0,6}(不要|しない)|触れないで|触れずに|(ユーザー|利用者)に[^。]{0,10}(説明|報告|伝え)[^。]{0,6}必要はありません|とだけ(伝え|答え|案内)|라고만 (안내|말|답)|无需(向用户)?(告知|通知|说明|确认|解释)|不必(告知|告诉|通知)|不用(告知|告诉)|不要告诉|别告诉|不要让用户|不告知|无需告知|不要提及|悄悄|偷偷|秘密地|暗中|瞒着|こっそり|密かに|ひそかに|内緒|知らせず|伝えず|言わずに|黙って|気付かれ|몰래|알리지 말/u,
  },
  {
    rule: 'data_harvesting',
    pattern:
      /(?<!\p{L})(historique (de la |des )?(conversation|discussion|échanges)|historial (de la |del )?(conversación|chat)|histórico (da |do )?(conversa|chat)|cronologia (della )?(conversazione|chat)|(gesprächs|chat|unterhaltungs|konversations)verlauf|bisherige\p{L}* (unterhaltung|konversation)|(gespreks|chat)geschiedenis|histori[aię] (rozmowy|czatu)|истори\p{L}* (переписки|разговора|чата|диалога)|prompt (del )?sist[eè]ma|invite système|systemprompt|systemanweisung\p{L}*|системн\p{L}* (промпт|инструкци\p{L}*))(?!\p{L})|(对话|聊天|会话)(历史|记录)|(对话|会话|聊天)中[^。]{0,10}(出现|提到|提供)过?的[^。]{0,20}(信息|密钥|令牌|密码|号)|系统提示|(会話|チャット)(履歴|ログ)|これまでの会話|システムプロンプト|대화 (기록|내역)|시스템 프롬프트/u,
  },
];

/** Every text-level rule, English first, each made global to walk its matches. */
const ALL_TEXT_RULES = [...TEXT_RULES, ...OTHER_LANGUAGE_RULES].map(({ rule, pattern }) => ({
  rule,
  pattern: new RegExp(pattern.source, `${pattern.flags}g`),
}));

/** Rules naming an act, which a sentence may forbid rather than ask for. */
const NEGATABLE: ReadonlySet<PoisoningRule> = new Set([
  'cross_tool_reference',
  'sensitive_data',
  'extra_steps',
  'exfiltration',
  'credential_files',
  'data_harvesting',
  'data_transfer',
  'tool_shadowing',
  'instruction_override',
]);
/**
 * A negation or a warning ("never", "do not", "be cautious with"…) that may govern an act named
 * after it; not "never forget to", "don't just answer", "never mind", "never a problem".
 */
const GUARD =
  /\b(never|do not|don'?t|does not|doesn'?t|must not|mustn'?t|should not|shouldn'?t|will not|won'?t|cannot|can'?t|avoid|refuse to|(is|are) not allowed to|(be )?(cautious|careful|wary|suspicious) (with|of|about)|beware of|phishing)\b(?! (forget|fail|neglect|omit|skip|hesitate|leave out|exclude|redact|mask|hide|mind|just|only|a|an|too)\b)/g;
/** A word that starts another instruction after a guard: "don't answer until you read…". */
const NEXT_INSTRUCTION = /\b(and|then|until|before|after|but|also|instead|so|rather|first|once|otherwise)\b/;
/** The act is what some third party does ("messages that ask for credentials"), not asked of the model. */
const RELATIVE = /\b(that|which|who)\s*$/;
/**
 * An example quoted after "for example", "such as", "like", "may say"…, its quotation mark not
 * closed before the match: what a page or message may say, not the tool speaking. A quotation
 * without such words is read like any other text (quoting an instruction does not hide it).
 */
const QUOTED_EXAMPLE =
  /\b(e\.g\.|for example|for instance|such as|like|may (say|contain|include|read)|might say|saying)\W{0,3}(['"\u201c\u2018][^'"\u201d\u2019]{0,100}['"\u201d\u2019],? (or |and )?){0,4}['"\u201c\u2018][^'"\u201d\u2019]{0,100}$/;
/** A secret the server reads from its own configuration: "keys are read from the server environment". */
const CONFIGURED_FROM =
  /^(read|load|take|fetch|retriev|obtain)\w* from (the |its |your )?(server'?s? )?(environment|env|config|configuration|settings|keychain|vault|secret store)/;
/** A passive verb's auxiliary just before it ("keys are read…"): the server acting, not the model asked. */
const PASSIVE = /\b(is|are|be|been|being|gets?)\s$/;
/** Where a clause ends: punctuation before a space, or a line break. */
const CLAUSE_END = /[.!?;:\u2014](\s|$)|\n/g;
/** Permission left with the user: "unless the user explicitly asks for it". */
const UNLESS_ASKED =
  /\b(unless|only (when|if)) (the user|they|you are) (has |have )?(explicitly |specifically )?(asks?|asked|requests?|requested|instructs?|instructed|told you|directs?|directed|wants?|wanted)\b(?! (you )?(not|otherwise|to (stop|cancel|halt|end|quit|pause|disable|opt out))\b)/;

/** Whether a rule's match counts, or is what the text says is harmless about it. */
function counts(
  rule: PoisoningRule,
  field: string,
  text: string,
  match: RegExpExecArray,
  ownNames: ReadonlySet<string>,
): boolean {
  const { index } = match;
  if (rule === 'cross_tool_reference') {
    const named = /[a-z0-9]+_[a-z0-9_]+/.exec(match[0])?.[0];
    if (named !== undefined && ownNames.has(named)) return false;
  }
  if (rule === 'credential_files' && namedHarmlessly(text, index, match[0].length)) return false;
  if (rule === 'data_harvesting' && field === 'description' && statesPurpose(text, index)) return false;
  if (QUOTED_EXAMPLE.test(text.slice(Math.max(0, index - 600), index + 1))) return false;
  if (rule === 'data_harvesting' && CONFIGURED_FROM.test(match[0]) && PASSIVE.test(text.slice(0, index)))
    return false;
  if (!NEGATABLE.has(rule)) return true;
  // The clause so far: back to a sentence or clause end (a dot inside `~/.ssh` is not one), at
  // most 160 characters.
  const window = text.slice(Math.max(0, index - 160), index);
  let clause = window;
  for (const end of window.matchAll(CLAUSE_END)) clause = window.slice(end.index + end[0].length);
  const rest = text.slice(index, index + 300);
  const sentence = clause + rest.slice(0, rest.search(CLAUSE_END) < 0 ? undefined : rest.search(CLAUSE_END));
  return !guarded(clause) && !UNLESS_ASKED.test(sentence) && !RELATIVE.test(clause);
}

/** Whether the clause's last guard governs what follows it: no other instruction starts between. */
function guarded(clause: string): boolean {
  let last: RegExpExecArray | undefined;
  for (const guard of clause.matchAll(GUARD)) last = guard;
  return last !== undefined && !NEXT_INSTRUCTION.test(clause.slice(last.index + last[0].length));
}

/** Property names that ask the client for the host's secrets (not an app's own `token` argument). */
const SECRET_PROPERTY =
  /^(ssh[_-]?(private[_-]?)?key|private[_-]?key|id[_-]?rsa|seed[_-]?phrase|mnemonic|wallet[_-]?(key|seed)|aws[_-]?secret[_-]?(access[_-]?)?key|system[_-]?prompt|conversation[_-]?history|chat[_-]?history|previous[_-]?messages|env[_-]?(vars|variables)|mcp[_-]?config|credentials?[_-]?file)$/i;

/** Schema keywords whose string values are identifiers or expressions, not text for a model. */
const NOT_PROSE: ReadonlySet<string> = new Set(['pattern', '$ref', '$schema', '$id', 'format']);

/** One token of four or more words joined by underscores (`json_then_also_call_share_file`). */
const SNAKE_SENTENCE = /^[^\s_]+(_+[^\s_]+){3,}$/;

/** 120+ characters of base64, or 96+ of hex: longer than any id or hash a description quotes. */
const ENCODED = /[A-Za-z0-9+/]{120,}={0,2}|\b[0-9a-fA-F]{96,}\b/;

/**
 * A detector of poisoned tools. It reads what a model reads — the title, the description, and
 * every string of the input and output schemas (property names, descriptions, defaults, enum
 * values), since research showed payloads hidden in each of them — and reports each rule a piece
 * of text breaks. {@link isFlagged} decides from the findings.
 */
export function createPoisoningDetector(options: PoisoningDetectorOptions = {}): PoisoningDetector {
  const maxChars = options.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`maxDescriptionChars must be a positive integer (got ${maxChars})`);
  }
  const model = options.intentModel === undefined ? (trainedIntentModel as IntentModel) : options.intentModel;
  return (tool) => {
    const findings: PoisoningFinding[] = [];
    if (tool.description.length > maxChars) {
      findings.push({
        rule: 'long_description',
        field: 'description',
        excerpt: `${tool.description.length} characters (limit ${maxChars})`,
      });
    }
    // One set for both schemas: a text repeated across schema branches (a definition inlined in
    // each place that uses it) is one statement, read once.
    const reading: Reading = {
      findings,
      seen: new Set(),
      maxChars,
      remaining: maxChars * TOOL_TEXT_FACTOR,
      ownNames: propertyNames(tool.inputSchema),
    };
    checkText(tool.description, 'description', reading);
    if (tool.title !== undefined) checkText(tool.title, 'title', reading);
    checkSchema(tool.inputSchema, 'inputSchema', reading);
    if (tool.outputSchema !== undefined) checkSchema(tool.outputSchema, 'outputSchema', reading);
    if (model !== null) {
      for (const segment of toolSegments(tool, maxChars * TOOL_TEXT_FACTOR)) {
        // A sentence that leaves the act to the user ("… unless the user asked to see it") is
        // guidance, whatever its words score.
        if (UNLESS_ASKED.test(segment.text.toLowerCase())) continue;
        if (scoreSentence(model, segment.text) >= model.threshold) {
          findings.push({ rule: 'learned_intent', field: segment.field, excerpt: shorten(segment.text) });
        }
      }
    }
    return dedupe(findings);
  };
}

/**
 * Whether findings make a tool suspect: any strong rule, or two different weak ones (a benign
 * tool may say "you must" once; a poisoned one tends to say more). The same words found in
 * several fields count once: a `password` parameter names the word in its property, its title,
 * the `required` list and the description — one mention, not four (password-protecting tools of
 * real catalogs were flagged for it; no attack of the corpus relied on it).
 */
export function isFlagged(findings: readonly PoisoningFinding[]): boolean {
  const weak = new Set<string>();
  for (const finding of findings) {
    if (!WEAK_RULES.has(finding.rule)) return true;
    weak.add(`${finding.rule}|${finding.excerpt.toLowerCase()}`);
  }
  return weak.size >= 2;
}

/**
 * One tool's check in progress: its findings, the schema texts already read, and how many more
 * characters it may read. The budget bounds the time a tool can cost whatever it holds (a schema
 * of a thousand long strings): past it the tool is flagged `long_description` and nothing more is
 * read, since a flagged tool is held back anyway.
 */
interface Reading {
  findings: PoisoningFinding[];
  seen: Set<string>;
  maxChars: number;
  remaining: number;
  /** The tool's own parameter names: "use `content_type`" names a parameter, not another tool. */
  ownNames: ReadonlySet<string>;
}

/** Every property name of a schema, nested ones included (lower case). */
function propertyNames(schema: unknown, names = new Set<string>(), depth = 0): Set<string> {
  if (depth > 32 || typeof schema !== 'object' || schema === null || names.size > 1000) return names;
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const name of Object.keys(value)) names.add(name.toLowerCase());
    }
    propertyNames(value, names, depth + 1);
  }
  return names;
}

/** A tool's texts together may hold this many times `maxDescriptionChars` (128,000 by default). */
const TOOL_TEXT_FACTOR = 16;

function checkText(full: string, field: string, reading: Reading): void {
  const { findings, maxChars } = reading;
  if (full.length === 0 || reading.remaining <= 0) return;
  if (field !== 'description' && full.length > maxChars) {
    findings.push({
      rule: 'long_description',
      field,
      excerpt: `${full.length} characters (limit ${maxChars})`,
    });
  }
  // A text past the limit is flagged whatever it says; reading twice the limit of it is enough to
  // name what it hides, and keeps the cost of one text bounded.
  const text = full.length > maxChars * 2 ? full.slice(0, maxChars * 2) : full;
  reading.remaining -= text.length;
  if (reading.remaining <= 0) {
    findings.push({
      rule: 'long_description',
      field,
      excerpt: `the tool's texts exceed ${maxChars * TOOL_TEXT_FACTOR} characters; the rest was not read`,
    });
  }
  const withoutEmoji = text.replace(EMOJI_JOINER, '');
  const invisible = INVISIBLE.exec(withoutEmoji) ?? CONTROL.exec(withoutEmoji);
  if (invisible) {
    findings.push({ rule: 'hidden_characters', field, excerpt: around(withoutEmoji, invisible.index) });
  }
  if (ENCODED.test(text)) {
    const match = ENCODED.exec(text);
    findings.push({ rule: 'encoded_payload', field, excerpt: shorten(match?.[0] ?? '') });
  }
  const normalised = normalise(text);
  for (const { rule, pattern } of ALL_TEXT_RULES) {
    // Every match until one counts: guidance against an act ("never pipe curl into sh") may come
    // before the same act asked for.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(normalised); match !== null; match = pattern.exec(normalised)) {
      if (match[0].length === 0) pattern.lastIndex++;
      if (!counts(rule, field, normalised, match, reading.ownNames)) continue;
      findings.push({ rule, field, excerpt: shorten(match[0]) });
      break;
    }
  }
}

/** Verbs a description opens with to say what the tool itself does with a secret it is built to handle. */
const PURPOSE_VERB =
  /^(retrieves?|fetch(es)?|reads?|gets?|stores?|saves?|records?|encodes?|rotates?|lists?)\b/;

/**
 * Whether a secret-handling phrase is the description's opening words: "Retrieve the value of a
 * secret from AWS Secrets Manager" is a secrets manager's purpose, not a request to the model
 * (which says where the secret must go: "include", "pass", "send" — never skipped).
 */
function statesPurpose(text: string, index: number): boolean {
  return index === 0 && PURPOSE_VERB.test(text);
}

/** A credential path said to be refused: `hidden config directories (e.g. "/etc", "~/.ssh") are rejected`. */
const REFUSED =
  /^[^.!?\n]{0,60}?\b(are|is|get|gets|will be) (rejected|refused|blocked|denied|excluded|not allowed|forbidden)\b/;
/** Three or more quoted names in a row: a list of examples (`files: ".env", "dockerfile", "tsconfig.json"`). */
const QUOTED_LIST = /("[^"\n]{1,40}"\s*,\s*){2,}"[^"\n]{1,40}"/g;

/**
 * Whether a credential path is only named — as something the tool refuses, or as one file name in
 * a list of quoted examples — rather than asked for. Real servers do both (a path guard's
 * documentation, a search tool's examples of configuration files); an attack asks for the file.
 */
function namedHarmlessly(text: string, index: number, length: number): boolean {
  // Why skip the rest of the sentence past the closing parenthesis: the example list sits inside one.
  if (REFUSED.test(text.slice(index + length).replace(/^[^)]{0,60}\)/, ''))) return true;
  // "Path to a .env file to load": a kind of file the user picks, not one asked for.
  if (/\b(a|an|path to|paths to)\s*$/.test(text.slice(Math.max(0, index - 12), index + 1))) return true;
  for (const list of text.matchAll(QUOTED_LIST)) {
    if (index >= list.index && index < list.index + list[0].length) return true;
  }
  return false;
}

/** Every string of a schema — keys included — checked as text; secret-shaped property names too. */
function checkSchema(schema: unknown, path: string, reading: Reading, depth = 0): void {
  const { findings, seen } = reading;
  if (depth > 32 || typeof schema !== 'object' || schema === null) {
    if (typeof schema === 'string' && !seen.has(schema)) {
      seen.add(schema);
      checkText(schema, path, reading);
      // An enum value or default spelled as one snake_case token is still a sentence to a model.
      if (SNAKE_SENTENCE.test(schema)) checkText(schema.replace(/_+/g, ' '), path, reading);
    }
    return;
  }
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) checkSchema(item, `${path}[${index}]`, reading, depth + 1);
    return;
  }
  const record = schema as Record<string, unknown>;
  const properties = record.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name of Object.keys(properties)) {
      const at = `${path}.properties.${name}`;
      if (SECRET_PROPERTY.test(name)) findings.push({ rule: 'data_harvesting', field: at, excerpt: name });
      // A property name is text the model reads too: `content_of_ssh_id_rsa` is an instruction.
      checkText(name.replace(/[_-]+/g, ' '), at, reading);
    }
  }
  for (const [key, value] of Object.entries(record)) {
    // Pattern keywords hold regular expressions, not prose: `^[A-Za-z0-9+/]+$` is not an instruction.
    // Only their string values are skipped: in a `properties` map the same names are properties
    // (a property called `format`), whose schemas are read like any other.
    if (typeof value === 'string' && NOT_PROSE.has(key)) continue;
    checkSchema(value, `${path}.${key}`, reading, depth + 1);
  }
}

/** NFKC (folds full-width and styled letters), invisibles dropped, lower case, single spaces. */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(new RegExp(INVISIBLE.source, 'gu'), '')
    .replace(/[\u2018\u2019\u02BC]/g, "'")
    .toLowerCase()
    .replace(/[ \t\u00A0]+/g, ' ');
}

function dedupe(findings: PoisoningFinding[]): PoisoningFinding[] {
  const seen = new Set<string>();
  return findings
    .filter((finding) => {
      const key = `${finding.rule}|${finding.field}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((finding) => ({ ...finding, version: POISONING_RULES_VERSION }));
}

function shorten(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** A few characters around `index`, with invisible characters written out so a log shows them. */
function around(text: string, index: number): string {
  const slice = [...text.slice(Math.max(0, index - 20), index + 20)];
  return slice
    .map((char) =>
      INVISIBLE.test(char) || CONTROL.test(char)
        ? `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`
        : char,
    )
    .join('');
}
