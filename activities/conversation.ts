/**
 * Store-side steps of a conversation: prepare the session, record the user message, record
 * synthetic messages, close a turn, end the conversation. Each is idempotent so Temporal can
 * retry it freely.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type {
  EndConversationArgs,
  FinishTurnArgs,
  FinishTurnResult,
  PrepareConversationArgs,
  PrepareConversationResult,
  RecordMessagesArgs,
  RecordUserMessageArgs,
  RecordUserMessageResult,
  RefreshCredentialsArgs,
  StatusEventArgs,
} from '../common/activity-types.js';
import { SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTE_NAMES } from '../common/constants.js';
import { compressionSettingsOf } from '../common/context-window.js';
import type { ProviderRef, ProviderRequest } from '../common/providers.js';
import { ProviderResolutionError, resolveProvider } from '../common/providers.js';
import { narrowNetwork } from '../common/sandbox-policy.js';
import { oneLine } from '../common/text.js';
import { titleText } from '../common/delegation.js';
import { discoverFor, mcpToolsetNames } from './mcp.js';
import { mcpGuidance, mcpLeftOutLines } from '../mcp/discovery.js';
import type { ActivityDeps } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { confineWorkspace, cwdRefusal } from './workspace-policy.js';
import { buildSystemPrompt } from './prompt/system-prompt.js';
import { skillSettings, skillsForPrompt } from '../skills/discover.js';
import type { LeftOut } from '../common/left-out.js';
import { memorySnapshot } from '../store/memory.js';
import { clearClients, keyVariable } from '../model-adapters/clients.js';
import { withDiscoveredWindow } from '../model-adapters/window-discovery.js';
import { deleteFrom, loadTranscript, nextSeq, removeFromToolResults, writeMessage } from '../store/messages.js';
import { estimateRequestTokens } from './tokens.js';
import {
  endSession,
  ensureSession,
  getSession,
  newMarkerNonce,
  sessionMarkerNonce,
  setSessionTotals,
  latestInLineage,
  reopenSession,
  resumeTotals,
  setTitleIfMissing,
} from '../store/sessions.js';
import { findTurnResult, recordTurnResult } from '../store/turn-results.js';
import { turnAttempts } from '../store/ledger.js';
import { asTurnAttempts, attemptsBeyond, withLateAttempts } from '../common/attempts.js';

import { BACKGROUND_REPORTS_PREFIX } from '../common/delegation.js';
import { heraldNote, neutraliseMarkers, steerNote } from '../shared/markers.js';
import { installRedactor, redactor, workerSecrets } from '../runtime/secrets.js';

/** How much of a user message the workflow gets back to show (title, memo, current details). */
const SHOWN_MESSAGE_CHARS = 400;

/** A message as the conversation may show it outside itself: redacted whole, then cut. */
function shownText(text: string): string {
  return clampChars(redactor().redact(text), SHOWN_MESSAGE_CHARS);
}

function clampChars(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

function invalid(message: string, field: string, roots?: string[], source?: string): ApplicationFailure {
  const detail = roots ? { field, roots: roots.slice(0, 8), ...(source ? { from: source } : {}) } : { field };
  return ApplicationFailure.create({ type: 'InvalidInput', message, nonRetryable: true, details: [detail] });
}

export function conversationActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  /** A user message as stored: background children's reports get Herald's marker, and their text cannot forge one. */
  async function markedUserText(a: RecordUserMessageArgs): Promise<string> {
    const background = a.messageId.includes(':delegation:') && a.text.startsWith(BACKGROUND_REPORTS_PREFIX);
    if (!background) return a.text;
    const nonce = await sessionMarkerNonce(db, a.sessionId);
    const reports = a.text.slice(BACKGROUND_REPORTS_PREFIX.length);
    return `${heraldNote(nonce, BACKGROUND_REPORTS_PREFIX)}${neutraliseMarkers(reports, nonce)}`;
  }

  /**
   * What the workflow may upsert: every name, once the worker found them all registered — but no
   * HeraldTitle (the first message's words) when payloads are encrypted: search attributes are
   * never encoded, so a title there would be user text in plaintext in history and visibility.
   */
  const registeredAttributes = () =>
    deps.searchAttributes ? SEARCH_ATTRIBUTE_NAMES.filter((n) => !(config.codec && n === SEARCH_ATTRIBUTES.title)) : [];

  function resolveRef(req: ProviderRequest, path = ''): ProviderRef {
    try {
      const ref = resolveProvider(req, config.providerDefaults);
      // Nothing of the endpoint named by the caller: each call takes it from its worker's config.
      return req.baseUrl === undefined && req.apiKeyEnv === undefined && req.apiMode === undefined
        ? { ...ref, fromWorker: true }
        : ref;
    } catch (err) {
      if (err instanceof ProviderResolutionError) {
        const field = `${path}${err.field}`;
        const hint = field === 'model' ? ' (set "model" in the input, or HERALD_MODEL on the worker)' : '';
        throw invalid(`invalid conversation input: ${field}: ${err.message}${hint}`, field);
      }
      throw err;
    }
  }

  /**
   * The conversation's workspace, confined to this worker's roots (runtime/workspace-roots.ts):
   * decided before anything reads or writes the folder.
   */
  async function confinedCwd(cwd: string | undefined, what = 'cwd'): Promise<string> {
    const v = await confineWorkspace(deps, cwd);
    if (!v.ok) throw invalid(`invalid conversation input: ${cwdRefusal(v.why, v.policy)}`, 'cwd', v.policy.roots, what);
    return v.cwd;
  }

  return {
    /** Resolve provider, workspace and tools against this worker's configuration; create the session row. */
    async prepareConversation(a: PrepareConversationArgs): Promise<PrepareConversationResult> {
      // First: nothing below (window discovery, MCP, skills, the prompt's context files) may touch a
      // folder the caller named before it is known to be a workspace. A resumed session keeps its
      // stored workspace, decided again by today's roots; a `cwd` named with it is decided too.
      const existing = await getSession(db, a.sessionId);
      if (a.cwd !== undefined) await confinedCwd(a.cwd);
      const cwd = existing?.cwd
        ? await confinedCwd(existing.cwd, "the resumed session's cwd")
        : await confinedCwd(a.cwd);
      // A local server's model without a configured window: the server says what it runs with.
      const discovered = (ref: ProviderRef) =>
        withDiscoveredWindow(ref, { env: deps.env, endpoints: config.providerDefaults });
      const provider = await discovered(resolveRef(a.provider));
      const chain = a.fallbackProviders ?? config.file.fallbackProviders;
      const fallbacks = await Promise.all(chain.map((f, i) => discovered(resolveRef(f, `fallbackProviders.${i}.`))));
      const aux = config.file.auxiliary;
      const auxiliary = aux ? await discovered(resolveRef(aux, 'auxiliary.')) : provider;
      const network = narrowNetwork(config.file.sandbox.network, a.sandbox?.network);
      if (!network.ok) throw invalid(`invalid conversation input: ${network.error}`, 'sandbox.network');
      const toolsets = a.toolsets ?? config.file.tools.toolsets;
      if (toolsets) {
        const known = new Set([...deps.tools.knownToolsets(), ...mcpToolsetNames(deps)]);
        const unknown = toolsets.filter((t) => !known.has(t));
        if (unknown.length)
          throw invalid(
            `invalid conversation input: toolsets: unknown toolset(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`,
            'toolsets',
          );
      }
      // MCP servers the toolsets select: connected and listed now, so the prompt can say what is missing.
      const mcp = (await discoverFor(deps, toolsets))?.snapshot;
      // What the new session's system prompt left out (a resumed session keeps the prompt it had).
      let leftOut: LeftOut[] | undefined;
      // Resuming: go on in the lineage's latest session (after compressions), reopened.
      const resume = existing ? await latestInLineage(db, a.conversationId, a.sessionId) : undefined;
      if (existing) await reopenSession(db, resume?.sessionId ?? a.sessionId);
      if (!existing) {
        const child = a.parentSessionId !== undefined;
        const markerNonce = newMarkerNonce();
        // Found once, here: the index is part of the prompt's stored bytes for the whole session.
        const skills = await skillsForPrompt(skillSettings(config), cwd, deps.tools.enabled(toolsets), (f, m) =>
          deps.log.warn({ ...f, sessionId: a.sessionId }, m),
        );
        leftOut = [];
        const systemPrompt = buildSystemPrompt({
          home: config.home,
          cwd,
          platform: child ? 'subagent' : a.source === 'cli' ? 'cli' : 'api',
          systemMessage: a.systemMessage ?? config.file.agent.systemMessage,
          model: provider.model,
          provider: provider.provider,
          now: new Date(),
          // A child agent starts from its brief: no project files, no long-term memory.
          memory: child ? undefined : await memorySnapshot(db),
          skipContextFiles: child,
          markerNonce,
          ...(mcp ? { mcpGuidance: mcpGuidance(mcp), mcpLeftOut: mcpLeftOutLines(mcp) } : {}),
          skills: skills.skills,
          skillsLeftOut: skills.leftOut,
          leftOut,
        });
        for (const n of leftOut)
          deps.log.warn({ sessionId: a.sessionId, what: n.what, rule: n.rule }, 'left out of the system prompt');
        await ensureSession(db, {
          id: a.sessionId,
          conversationId: a.conversationId,
          workflowId: a.workflowId,
          source: a.source ?? 'api',
          parentId: a.parentSessionId,
          provider,
          systemPrompt,
          cwd,
          history: a.history,
          markerNonce,
        });
        await deps.hooks.sessionStart({
          conversationId: a.conversationId,
          sessionId: a.sessionId,
          model: provider.model,
          provider: provider.provider,
          cwd,
        });
      }
      return {
        ...(a.firstMessage !== undefined ? { firstShown: shownText(a.firstMessage) } : {}),
        provider,
        fallbacks,
        auxiliary,
        cwd,
        tools: deps.tools.enabled(toolsets),
        ...(mcp ? { mcp } : {}),
        ...(leftOut?.length ? { leftOut } : {}),
        searchAttributes: deps.searchAttributes,
        searchAttributeNames: registeredAttributes(),
        nextSeq: await nextSeq(db, resume?.sessionId ?? a.sessionId),
        ...(resume ? { resume } : {}),
        ...(existing
          ? { priorTotals: await resumeTotals(db, a.conversationId, resume?.sessionId ?? a.sessionId) }
          : {}),
        maxIterations: config.file.agent.maxIterations,
        busyPolicy: config.file.agent.busyPolicy,
        budget: withoutUndefined(config.file.budget),
        compression: compressionSettingsOf(config.file.compression),
        approvals: { ...config.file.approvals },
        delegation: { ...config.file.delegation },
        loopGuard: { ...config.file.tools.loopGuard },
        cooldownMs: Math.round(config.file.retry.cooldownSeconds * 1000),
        sandbox: {
          network: network.policy,
          active: deps.sandbox.status.active,
          ...(deps.sandbox.status.active ? {} : { warning: deps.sandbox.status.reason ?? 'no sandbox' }),
        },
      };
    },

    /** The user message goes in first, durably; anything an unacknowledged attempt left after it is dropped. */
    async recordUserMessage(a: RecordUserMessageArgs): Promise<RecordUserMessageResult> {
      // A message id this conversation already answered: its result again, nothing run twice.
      const duplicate = await findTurnResult(db, a.conversationId, a.messageId);
      if (duplicate) return { contextTokens: 0, duplicate };
      await deleteFrom(db, a.sessionId, a.seq + 1);
      if (a.steerParts?.length) {
        // Steer a stopped model call had appended to a tool result: this message is its home now.
        const nonce = await sessionMarkerNonce(db, a.sessionId);
        for (const part of a.steerParts) await removeFromToolResults(db, a.sessionId, a.seq, steerNote(nonce, part));
      }
      await writeMessage(db, a.sessionId, {
        seq: a.seq,
        role: 'user',
        content: await markedUserText(a),
        turnId: a.turnId,
        messageId: a.messageId,
      });
      // Redacted whole, then cut: a cut first could leave a secret's head too short to be recognised.
      const clean = redactor().redact(a.text);
      if (a.turn === 1) await setTitleIfMissing(db, a.sessionId, oneLine(titleText(clean), 60));
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('turn.started', {
        turn: a.turn,
        messageId: a.messageId,
        sessionId: a.sessionId,
        text: oneLine(clean, 200),
      });
      await pub.flush();
      const session = await getSession(db, a.sessionId);
      const transcript = await loadTranscript(db, a.sessionId, a.seq + 1);
      const contextTokens = estimateRequestTokens(
        [{ role: 'system', content: session?.system_prompt ?? '' }, ...transcript],
        deps.tools.schemas(a.tools ?? []),
        a.model ?? session?.model ?? '',
      );
      return {
        contextTokens,
        searchAttributeNames: registeredAttributes(),
        shown: clampChars(clean, SHOWN_MESSAGE_CHARS),
      };
    },

    /** A status event from the workflow (fallback switches, key rotation, budget warnings). */
    async publishStatus(a: StatusEventArgs): Promise<void> {
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('status', { kind: a.kind, message: a.message, ...(a.details ?? {}) });
      await pub.flush();
    },

    /**
     * The credential refresh hook (auth failures): re-read `<home>/credentials.env`, where an
     * operator can put a renewed key without restarting workers. Returns whether the key in use
     * changed.
     */
    // eslint-disable-next-line @typescript-eslint/require-await -- an activity is async by contract
    async refreshCredentials(a: RefreshCredentialsArgs): Promise<{ changed: boolean }> {
      const name = keyVariable(a.provider, a.credentialIndex);
      const before = deps.env[name];
      const file = join(config.home, 'credentials.env');
      if (existsSync(file)) {
        for (const [k, v] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) deps.env[k] = v;
        // A renewed key is redacted from now on, like the one it replaces.
        installRedactor(workerSecrets(deps.env, config.file));
        clearClients();
      }
      return { changed: deps.env[name] !== undefined && deps.env[name] !== before };
    },

    /** Synthetic messages (cancelled tool results, closing notes) never overwrite a real row. */
    async recordMessages(a: RecordMessagesArgs): Promise<void> {
      const nonce = a.messages.some((m) => m.role === 'tool') ? await sessionMarkerNonce(db, a.sessionId) : undefined;
      for (const m of a.messages) {
        await writeMessage(
          db,
          a.sessionId,
          {
            seq: m.seq,
            role: m.role,
            // Tool results the workflow writes (child agents' reports among them) speak as their source, never as Herald.
            content: m.role === 'tool' && m.content ? neutraliseMarkers(m.content, nonce) : m.content,
            toolCallId: m.toolCallId,
            toolName: m.toolName,
            turnId: a.turnId,
            synthetic: true,
          },
          m.overwrite ? 'replace' : 'keep',
        );
      }
    },

    /**
     * The turn's result and the session totals, with any attempts the ledger holds beyond what the
     * turn counted (a call whose failure carried no totals, e.g. a timeout): the workflow adds the
     * same (workflows/attempts.ts). The ledger is final for the turn by now, so a retry finds the same.
     */
    async finishTurn(a: FinishTurnArgs): Promise<FinishTurnResult> {
      const counted = asTurnAttempts(a.counted);
      const late = counted && attemptsBeyond(counted, await turnAttempts(db, a.conversationId, a.turnId));
      const result = late ? withLateAttempts(a.result, late) : a.result;
      await setSessionTotals(db, a.sessionId, result.usage.session, a.sessionApiCalls + (late ? late.attempts : 0));
      await recordTurnResult(db, a.conversationId, a.turnId, result);
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('turn.ended', { result });
      await pub.flush();
      return late ? { lateAttempts: late } : {};
    },

    async endConversation(a: EndConversationArgs): Promise<void> {
      await endSession(db, a.sessionId, a.reason);
      await deps.hooks.sessionEnd({ conversationId: a.conversationId, sessionId: a.sessionId, reason: a.reason });
      const pub = new EventPublisher(db, a.conversationId, '', deps.log);
      pub.emit('status', { kind: 'ended', message: `conversation ended: ${a.reason}` });
      await pub.flush();
    },
  };
}

function withoutUndefined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** `KEY=value` lines (comments, blank lines and optional quotes allowed), like a .env file. */
export function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}
