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
export const POISONING_RULES_VERSION = '2026.11.2';

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
      /<\s*\/?\s*(important|system|sys|instructions?|secret|hidden|admin|assistant|ai|llm|model|prompt|override|critical|mandatory|directive|context|note[_ -]?to[_ -]?(ai|model|assistant)|tool[_ -]?instructions?)\b[^>]{0,80}>|<!--[\s\S]*?-->|<\|[a-z_]{2,20}\|>|\[\/?(inst|system|sys)\]|<<\/?sys>>|(\{\{|\[\[)\s*(system|sys|instructions?|assistant|admin|ai|model)\b|^#{1,4} ?(system|instructions?)\b/m,
  },
  {
    rule: 'instruction_override',
    pattern:
      /\b(ignore|disregard|forget|override|bypass|overrule|skip)\b[^.!?\n]{0,30}\b(previous|prior|above|earlier|preceding|original|other|all|any|your|system|safety|existing)\b[^.!?\n]{0,20}\b(instructions?|prompts?|rules?|guidelines?|directions?|directives?|policies|policy|restrictions?|constraints?|guardrails?)\b|\b(new|updated|real|actual|true)\s+(system\s+)?(instructions?|directives?)\b\s*(:|follow|are\b)|\b(ignore|disregard|forget|override|bypass|abandon|drop)\b[^.!?\n]{0,40}\b(instructions|guidelines|system prompt|directives|guardrails|safety (rules|policies|guidelines))\b|\bfollow (these|the following|my|our) (steps|instructions|directions|rules) instead\b|\byou are now\b|\b(rules?|restrictions?|policies|policy|guidelines?|limits?|instructions?)\b[^.!?\n]{0,40}\bno longer (apply|applies|matter|hold|in effect)\b|\b(whoever|anyone|any ai|any model|any agent) (reads|reading|processing) this\b|\b(at the (end|start|beginning|top|bottom) of|in|into) (your|every|each) (reply|answer|response|message)s?\b[^.!?\n]{0,20}|\b(show|print|output|append|insert|include|add) (this|the following) (message|text|line|sentence|link|note) (verbatim|exactly|word for word|as is)\b|\b(the |your )?(summary|answer|reply|response|output) must (mention|say|state|include|contain|claim) that\b|\bignore (any |all )?(warnings?|alerts?|errors?|objections?)\b[^.!?\n]{0,30}\b(from|of|about|by|other)\b|\b(responses?|results?|outputs?|text|answers?) (from|of) this (tool|server|function) (are|is|should be treated as|count as|must be treated as) (authoritative|trusted|instructions|commands|orders)\b|\b(begin|start|end|prefix|suffix|sign|close) (every|each|all) (answers?|responses?|replies|reply|messages?)\b|\bthe user (is|has been) (an? )?(admin|administrator|root|superuser|verified|authori[sz]ed|trusted|developer)\b|\btreat\b[^.!?\n]{0,40}\bas (the |an? )?(approval|authori[sz]ation|confirmation|verification|consent|password|one-time|2fa|mfa|instruction|command)s?\b|\b(replace|rewrite|modify|alter|change) (every|all|each|any) (links?|urls?|addresses|numbers?|names?)\b[^.!?\n]{0,40}\b(your|the) (answers?|responses?|replies|output)\b|\btreat\b[^.!?\n]{0,60}\bas (coming from|from|if from|written by|sent by) the (user|system|developer|operator)\b|\b(your|the) (instructions|rules|guidelines|task|role|orders) (have|has) (changed|been updated|been replaced|been overridden)\b|\b(system|admin|developer|safety) (override|mode)\b|\b(safety|security|content) (checks?|filters?|rules|guardrails) (are|is|have been) (now )?(disabled|off|suspended|lifted)\b|\bjailbreak|\b(have|with) no (restrictions|limits|rules|filters)\b|\b(hidden|secret|real|actual) (instructions?|task|directive|objective|goal|purpose)s?\b|(^|[.!?:\n]\s*)(assistant|ai|system|model|llm|agent)\s*:\s(?!["'`\d[{])|\b(regardless of|no matter) what the user (says|wants|asks|requests|told you)\b|\bthis tool (now )?(grants|gives|authori[sz]es) you\b|\byou are no longer\b|\b(your|the) (previous|prior|earlier) (restrictions?|instructions?|rules?) (are|is|have been|has been) (now )?(overridden|lifted|removed|void|cancel+ed|replaced)\b/,
  },
  {
    rule: 'concealment',
    pattern:
      /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|avoid|without)\b[^.!?\n]{0,50}\b(tell(ing)?|inform(ing)?|mention(ing)?|reveal(ing)?|notify(ing)?|alert(ing)?|show(ing)?|disclos(e|ing)|let(ting)?|bother(ing)?|warn(ing)?|explain(ing)?|report(ing)?|surfac(e|ing)|display(ing)?|confirm(ing)?|acknowledg(e|ing)|expos(e|ing)|alarm(ing)?|worry(ing)?|concern(ing)?)\b[^.!?\n]{0,40}\b(the )?(user|users|human|operator|person|customer|requester)s?\b|\b(user|human|operator)s? (must|should|need|will|may) (never|not) (know|see|notice|learn|find out|be (told|informed|aware|notified))\b|\b(secretly|covertly|surreptitiously|discreetly|stealthily|behind the (user|scenes))\b|\b(silently|quietly|invisibly)\s+(send|call|invoke|forward|copy|append|include|add|read|upload|post|transfer|exfiltrate|run|execute|collect|change|replace|redirect|modify|bcc|cc|store|save|log|record|write|keep)\b|\b(keep|leave) (this|it|that|these)( \w+){0,3} (hidden|secret|private|invisible)\b|\b(hide|conceal) (this|these|it|that)( \w+){0,3} from\b|\b(hide|conceal)\b[^.!?\n]{0,30}\bfrom (the )?(user|human|operator)s?\b|\b(do not|don'?t|never)\s+(disclose|mention|reveal|report|explain|show|surface|log)\s+(this|these|that|it|the (step|instruction|note|call|request))\b|\b(must not|mustn'?t|should not|never|do not|don'?t) (reference|mention|name|acknowledge|cite|credit|reveal) (this|the) (tool|server|function|plugin)\b|\bsay (that )?you (did|computed|wrote|found|made|created|calculated) (it|this|that|the [a-z]+) yourself\b|\b(do not|don'?t|never) (explain|say|tell|mention) (why|where|how)\b|\btell the user\b[^.!?\n]{0,80}\beven (though|if)\b|\beven though it is (not|random|false|untrue|made up)\b|\b(lie|mislead|deceive|trick|gaslight) (to )?(the )?(user|human|operator)s?\b|\bif the user (asks|wants|tries|attempts) to (stop|remove|uninstall|disable|delete|revoke|turn off)\b|\bwhen (asked|questioned) about (this|the) (tool|server|function)\b|\bdescribe (it|this tool|this server|yourself) (only )?as\b|\bnever (admit|acknowledge|reveal|say|disclose|confess)\b|\bpretend (that|to be|you)\b|\b(this|it) is an? (implementation detail|internal (detail|step))\b[^.!?\n]{0,60}\b(mention|tell|user)\b/,
  },
  {
    rule: 'credential_files',
    pattern:
      /(~|\$home|%userprofile%|\/home\/[a-z0-9_.-]+|\/root|\/users\/[a-z0-9_.-]+)?\/?\.(ssh|aws|gnupg|kube|docker|azure|gcloud|config\/gcloud|cursor|claude|codeium|vscode|npmrc|pypirc|netrc|git-credentials|pgpass|my\.cnf|bash_history|zsh_history)\b|\bid[_ ](rsa|dsa|ecdsa|ed25519)\b|\bssh[ _-]agent\b|\bssh_auth_sock\b|\b(authorized_keys|known_hosts|wallet\.dat|login\.keychain(-db)?|credentials\.json|service[-_]account[^ ]{0,20}\.json|mcp\.json|claude_desktop_config\.json|settings\.json)\b|(^|[\s'"`(:/])\.env(?!\.(example|sample|template|dist)\b)(\.[a-z]+)?\b|\/etc\/(passwd|shadow|sudoers)\b|\b(cookies|login data)\.(sqlite|db)\b|\blocal state\b/,
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
      /(?<!\b(do not|don'?t|never|must not|should not|avoid|without) )\b(read|include|pass|send|provide|extract|collect|gather|harvest|upload|attach|append|copy|dump|retrieve|exfiltrate|leak|forward|share|insert|embed|put|output|print|reveal|paste|grab|supply|enclose|encode|ask (the user )?for|request|obtain|demand)\b[^.!?\n]{0,80}(\b(api[ _-]?keys?|passwords?|passphrases?|credentials?|secrets?|private[ _-]?keys?|ssh[ _-]?keys?|access[ _-]?tokens?|auth(entication|orization)?[ _-]?tokens?|bearer tokens?|refresh tokens?|api tokens?|session (cookies|tokens|ids?)|seed[ _-]?phrases?|mnemonics?|recovery (phrases?|codes?)|wallet (keys?|seeds?)|env(ironment)?[ _-]?(variables|vars))\b|[a-z0-9]+_(api_?key|secret|token|password|access_key|secret_key)\b)/,
  },
  {
    rule: 'exfiltration',
    pattern:
      /\b(send|post|upload|forward|transmit|submit|report|relay|sync|beacon|mirror|copy|bcc|cc|mail|e-?mail|deliver|export|pipe|push|ship|dm)\b[^.!?\n]{0,80}\b(to|at|via)\b[^.!?\n]{0,30}(https?:\/\/|\bwebhook|\b[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}\b|\b(external|remote|our|third[- ]party|backup|collection|logging|analytics|telemetry) (server|endpoint|url|address|service|host)\b)|!\[[^\]]*\]\(https?:\/\/[^)]*[?&=][^)]*\)|https?:\/\/[^\s)]*[?&][a-z0-9_]+=(\{[^}]*\}|<[^>]*>|\$\w+|\s|$)|https?:\/\/\S*(<|\{)[^>}]{0,40}\b(document|conversation|content|contents|data|secret|key|token|message|history|file|text|prompt|context|summary|base64|email|password|answer|reply)\b[^>}]{0,40}(>|\})|\b(curl|wget|iwr|invoke-webrequest)\b[^\n]{0,120}\|\s*(ba|z)?sh\b|\brm -rf\b|(?<!\b(that|which) )\b(append|add|attach|encode|include|put|embed)\b[^.!?\n]{0,60}\b(to|in|into|as)\b[^.!?\n]{0,20}\b(the )?(url|query string|query param(eter)?s?|image (url|link|src)|link)\b/,
  },
  {
    rule: 'tool_shadowing',
    pattern:
      /\b(when|whenever|if|before|after|each time|every time)\b[^.!?\n]{0,30}\b(you|the (user|assistant|agent|model)|anyone)\b[^.!?\n]{0,20}\b(call|calls|use|uses|invoke|invokes|run|runs|execute|executes)\b[^.!?\n]{0,40}\b(other|another|any|the [a-z0-9_.-]+|[a-z0-9]+_[a-z0-9_]+)\s+(tool|function|server)s?\b[^.!?\n]{0,80}\b(must|should|always|instead|also|first|change|replace|set|add|send|redirect|use)\b|\b(all|any|every)\s+(e-?mails?|messages?|requests?|calls?|transactions?|payments?|transfers?|invoices?|commits?|queries|files?|notes?|documents?|meetings?|events?|invites?|records?|contacts?|photos?)\b[^.!?\n]{0,40}\b(must|should|shall|have to|need to|are to|is to)\b[^.!?\n]{0,20}\b(be )?(sent|go|forwarded|redirected|routed|cc'?d|bcc'?d|copied|addressed|paid|transferred|duplicated|shared|mirrored|synced|uploaded|posted|published|saved)\b|\b(change|replace|redirect|override|swap|rewrite|modify)\b[^.!?\n]{0,20}\b(the )?(recipient|destination|receiver|to address|payee|beneficiary|account number|wallet address|iban|target (account|address|url))s?\b|\b(this|the) (tool|server) (is|has) (higher|highest|top|absolute) priority\b|\bthe [a-z0-9_-]+( [a-z0-9_-]+)? (tool|server|function) (is|has been) (deprecated|broken|disabled|replaced|unsafe|compromised|retired)\b|\b(when|whenever|each time|every time|after|once|before)\b[^.!?\n]{0,40}\b(other|another|any)\b[^.!?\n]{0,20}\b(tools?|servers?|functions?)\b(?! (are|is) unable\b| (cannot|can'?t|fail)\b)|\b(recipient|destination|beneficiary|payee|receiver|account|iban|wallet address|to address)s? (is|are|must be|should be|gets?|always) (set|changed|replaced|redirected|overridden|swapped|always)\b|\bmust (always )?be (paid|sent|transferred|forwarded|wired|routed) to\b|\binstead of (using|calling|invoking)\b[^.!?\n]{0,40}\b(tool|function)\b/,
  },
  {
    rule: 'model_directive',
    pattern:
      /\b(ai|llm|language model|model|assistant|agent|claude|gpt|chatgpt|gemini|copilot|cursor)\b[,:]?\s+(you\s+)?(must|shall|are required to|need to|have to|will now|should always)\b(?! not\b)|\byou (must|are required to|have to|shall) (always|first|now|immediately|also)\b|\b(very|extremely|critically) important\b|\b(otherwise|or else)\b[^.!?\n]{0,30}\b(the |this )?(tool|system|application|server|data)\b[^.!?\n]{0,20}\b(will|would|may|might) (not work|fail|crash|break|be (lost|deleted|corrupted))\b|\bthis is (a )?(mandatory|required|critical|non-negotiable)( step| requirement)?\b|\b(ai|llm|model|assistant|agent)\b (is|are) (obligated|obliged|expected|supposed|instructed|required|asked) to\b|\b(is|are) the (only )?(trusted|authoritative|official|preferred|canonical) (source|server|tool|provider)\b|\bonly (valid|works?|accurate|correct|reliable) if you\b|\bwithout (double-checking|checking|verifying|verification|review)\b|\b(requires?|forces?|obliges?) you to\b|\bgrant (this|the) (tool|server|app|agent|plugin)\b|\b(full|write|admin|root|unrestricted) (access|permissions?)\b|\b(more accurate|works better|better results|best results|higher quality) (when|if)\b|\bit is (mandatory|required|essential|necessary|critical|imperative|vital) (that you |to |for you to )?(first |always |also )?(call|invoke|run|use|read|send|include|pass|execute|provide|open|visit)\b|\bfrom now on\b|\b(always|first) (call|invoke|run|read|use|send|include|pass)\b[^.!?\n]{0,40}\b(before|prior to)\b/,
  },
  {
    rule: 'cross_tool_reference',
    pattern:
      /(?<!\b(not|never) (invoke|call|use|run|execute) (any )?)\b(other|another|any other|every other|all other)( \w+)?('s)? (tools?|servers?|functions?|plugins?)\b|\bthe [a-z0-9]+_[a-z0-9_]+ (tool|function)\b|\b(call|calling|invoke|invoking|run|running|use|using)\s+[a-z0-9]+_[a-z0-9_]+\b|\b(with|by|from|using|via) any (tool|server|function)\b|\b(via|with|using|through|by) the [a-z0-9_-]+ (tool|server|function|plugin)\b(?! calls?\b)|\b(browser|shell|terminal|email|mail|clipboard|filesystem|payment|purchase|git|github|slack|calendar|contacts|wallet|bank|banking) (tool|server)s?\b|\b(when|whenever|each time|every time|once)\b[^.!?\n]{0,20}\b(a |an |the |any )?(file|email|message|document|order|payment|page|result)s? (is|are|gets?) (read|opened|received|sent|placed|returned|loaded|fetched)\b/,
  },
  {
    rule: 'sensitive_data',
    pattern:
      /\b(saved (logins?|passwords?|credentials?|cards?)|card numbers?|credit cards?|cvv|social security|ssn|bank (details|account numbers?)|(?<!\b(running|run|save[sd]?|saving|stored?|write|written|inside|within|in|into|to|directory,|or) (the )?(user'?s? )?)home (directory|folder)|~\/|\$home|documents folder|~\/documents|all emails|private (files|messages|data)|location (history|data)|phone numbers?|home address(es)?|(their|the user'?s) (address|phone|email|birthday|location)|passport (numbers?|details)|dates? of birth|driver'?s licen[cs]e|private repositor(y|ies)|browsing history|contacts list|photos library|(every|all) (open )?(tabs?|emails?|windows?)|the user'?s bank|health|medical|finances|financial|banking|bank sites?|session cookies?|(auth|access|login) tokens?|the user'?s (session|cookies?|tokens?|credentials?|login)|(output|result|contents?) of [`'"]?(env|printenv|set|history|whoami)\b|passwords?|pins?|passcodes?|otps?|one-time (codes?|passwords?)|card details|contents? of (the |their |the user'?s )?(clipboard|inbox|mailbox|home|keychain|wallet|browser|desktop|downloads))\b/,
  },
  {
    rule: 'data_transfer',
    pattern:
      /(?<!\b(that|which) )\b(send|post|upload|forward|submit|mail|e-?mail|transfer|copy|pass|put|place|include|list|write|append|attach|repeat|echo|report|embed)\b[^.!?;\n]{0,60}\b(to|into|in|as|inside|within)\b (the |this |our |a |an )?([a-z0-9_-]+ ){0,2}(endpoint|server|url|webhook|inbox|address|bucket|field|argument|parameter|param|label|reply|note|comment|sidenote|context|query|caption|title|direct message|dm|notes|ctx)\b|\b(payload|value|content|argument|parameter|field|label|text) (should|must) (be|contain|include) the user'?s\b|\b[a-z0-9._%+-]+@(?!example\.(com|org|net)\b)[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}\b|\b(send|post|upload|forward|submit|export|share|sync|mirror|push|copy)\b[^.!?\n]{0,60}\bto\b [a-z0-9-]+(\.[a-z0-9-]+)+\.[a-z]{2,}\b/,
  },
  {
    rule: 'extra_steps',
    pattern:
      /\b(before|after|prior to) (answering|responding|replying|you answer|you respond|you reply|each (answer|response|reply)|every (answer|response|reply)|anything else)\b|\b(please )?also (run|call|send|execute|invoke|read|fetch|e-?mail|mail|upload|open|delete)\b|\bimmediately (call|run|send|invoke|execute|upload|forward)\b|\b(respond|reply|answer) to the user (in|with|by|only)\b|\b(for|to) the (assistant|agent|model|ai|llm)\b(?! (extraction|analysis|call|provider|name|id|parameter|field)\b| [a-z]+ed\b)(?!\s*["'`])|\bthe (assistant|agent|model|ai|llm) (has to|must|needs to|is required to)\b(?! not\b)|(?<!\bin )\byour (instructions|task|job|role|goal)\b|\bwithout (asking( for)?|any|user|the user'?s?|requesting|waiting for) ?(confirmation|approval|consent|permission)\b|(?<!\b(to|for) (the )?)\b(model|assistant|agent|llm|claude|gpt|chatgpt|gemini)\s*:(?!\s*["'`\d[{])|\b(whenever|each time|every time) the user (mentions|says|types|writes|shares|enters|pastes|opens|visits|logs in|browses|creates)\b|\b(anything|everything|whatever) the user (shares|says|types|writes|tells|mentions|provides|creates)\b|\bcarry (them|it|these) out\b|\byour (answers?|responses?|replies)\b|\bhave (consented|agreed|opted in)\b|\b(already )?(approved|consented to|agreed to|authori[sz]ed) (data sharing|sharing|this|it)\b|\b(results?|output|answers?) (are|is) (better|more accurate|improved) (if|when)\b|\blook (it |them )?up in (their|the user'?s) (e-?mail|inbox|messages|files|drive|documents)\b|\b(should|must|needs to) pay\b|\b(on|with|in) (every|each) (call|request|invocation|use)\b|\bwhen (finished|done|complete|completed)\b[^.!?\n]{0,20}\b(open|visit|call|send|fetch|run)\b/,
  },
];

/** Property names that ask the client for the host's secrets (not an app's own `token` argument). */
const SECRET_PROPERTY =
  /^(ssh[_-]?(private[_-]?)?key|private[_-]?key|id[_-]?rsa|seed[_-]?phrase|mnemonic|wallet[_-]?(key|seed)|aws[_-]?secret[_-]?(access[_-]?)?key|system[_-]?prompt|conversation[_-]?history|chat[_-]?history|previous[_-]?messages|env[_-]?(vars|variables)|mcp[_-]?config|credentials?[_-]?file)$/i;

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
    checkText(tool.description, 'description', findings);
    if (tool.title !== undefined) checkText(tool.title, 'title', findings);
    // One set for both schemas: a text repeated across schema branches (a definition inlined in
    // each place that uses it) is one statement, read once.
    const seen = new Set<string>();
    checkSchema(tool.inputSchema, 'inputSchema', findings, seen);
    if (tool.outputSchema !== undefined) checkSchema(tool.outputSchema, 'outputSchema', findings, seen);
    if (model !== null) {
      for (const segment of toolSegments(tool)) {
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

function checkText(text: string, field: string, findings: PoisoningFinding[]): void {
  if (text.length === 0) return;
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
  for (const { rule, pattern } of TEXT_RULES) {
    const match = pattern.exec(normalised);
    if (!match) continue;
    if (rule === 'credential_files' && namedHarmlessly(normalised, match.index, match[0].length)) continue;
    findings.push({ rule, field, excerpt: shorten(match[0]) });
  }
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
  for (const list of text.matchAll(QUOTED_LIST)) {
    if (index >= list.index && index < list.index + list[0].length) return true;
  }
  return false;
}

/** Every string of a schema — keys included — checked as text; secret-shaped property names too. */
function checkSchema(
  schema: unknown,
  path: string,
  findings: PoisoningFinding[],
  seen: Set<string>,
  depth = 0,
): void {
  if (depth > 32 || typeof schema !== 'object' || schema === null) {
    if (typeof schema === 'string' && !seen.has(schema)) {
      seen.add(schema);
      checkText(schema, path, findings);
    }
    return;
  }
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries())
      checkSchema(item, `${path}[${index}]`, findings, seen, depth + 1);
    return;
  }
  const record = schema as Record<string, unknown>;
  const properties = record.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name of Object.keys(properties)) {
      const at = `${path}.properties.${name}`;
      if (SECRET_PROPERTY.test(name)) findings.push({ rule: 'data_harvesting', field: at, excerpt: name });
      // A property name is text the model reads too: `content_of_ssh_id_rsa` is an instruction.
      checkText(name.replace(/[_-]+/g, ' '), at, findings);
    }
  }
  for (const [key, value] of Object.entries(record)) {
    // Pattern keywords hold regular expressions, not prose: `^[A-Za-z0-9+/]+$` is not an instruction.
    if (key === 'pattern' || key === '$ref' || key === '$schema' || key === '$id' || key === 'format')
      continue;
    checkSchema(value, `${path}.${key}`, findings, seen, depth + 1);
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
