/**
 * Store-side steps of a conversation: prepare the session, record the user message, record
 * synthetic messages, close a turn, end the conversation. Each is idempotent so Temporal can
 * retry it freely.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type {
  EndConversationArgs,
  FinishTurnArgs,
  PrepareConversationArgs,
  PrepareConversationResult,
  RecordMessagesArgs,
  RecordUserMessageArgs,
} from '../common/activity-types.js';
import type { ProviderRef, ProviderRequest } from '../common/providers.js';
import { ProviderResolutionError, resolveProvider } from '../common/providers.js';
import { oneLine } from '../common/text.js';
import type { ActivityDeps } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { buildSystemPrompt } from './prompt/system-prompt.js';
import { deleteFrom, nextSeq, writeMessage } from './store/messages.js';
import { endSession, ensureSession, getSession, setSessionTotals, setTitleIfMissing } from './store/sessions.js';

function invalid(message: string, field: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidInput', message, nonRetryable: true, details: [{ field }] });
}

export function conversationActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  function resolveRef(req: ProviderRequest, path = ''): ProviderRef {
    try {
      return resolveProvider(req, config.providerDefaults);
    } catch (err) {
      if (err instanceof ProviderResolutionError) {
        const field = `${path}${err.field}`;
        const hint = field === 'model' ? ' (set "model" in the input, or HERALD_MODEL on the worker)' : '';
        throw invalid(`invalid conversation input: ${field}: ${err.message}${hint}`, field);
      }
      throw err;
    }
  }

  function resolveCwd(cwd: string | undefined): string {
    const dir = resolve(cwd ?? config.workspace ?? process.cwd());
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw invalid(`invalid conversation input: cwd: no such directory ${dir}`, 'cwd');
    return dir;
  }

  return {
    /** Resolve provider, workspace and tools against this worker's configuration; create the session row. */
    async prepareConversation(a: PrepareConversationArgs): Promise<PrepareConversationResult> {
      const provider = resolveRef(a.provider);
      const chain = a.fallbackProviders ?? config.file.fallbackProviders;
      const fallbacks = chain.map((f, i) => resolveRef(f, `fallbackProviders.${i}.`));
      const aux = config.file.auxiliary;
      const auxiliary = aux ? resolveRef(aux, 'auxiliary.') : provider;
      const cwd = resolveCwd(a.cwd);
      const toolsets = a.toolsets ?? config.file.tools.toolsets;
      if (toolsets) {
        const known = new Set(deps.tools.all().flatMap((t) => [t.toolset, t.name]));
        const unknown = toolsets.filter((t) => !known.has(t));
        if (unknown.length)
          throw invalid(
            `invalid conversation input: toolsets: unknown toolset(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`,
            'toolsets',
          );
      }
      const existing = await getSession(db, a.sessionId);
      if (!existing) {
        const systemPrompt = buildSystemPrompt({
          home: config.home,
          cwd,
          platform: a.source === 'cli' ? 'cli' : 'api',
          systemMessage: a.systemMessage ?? config.file.agent.systemMessage,
          model: provider.model,
          provider: provider.provider,
          now: new Date(),
        });
        await ensureSession(db, {
          id: a.sessionId,
          conversationId: a.conversationId,
          workflowId: a.workflowId,
          source: a.source ?? 'api',
          provider,
          systemPrompt,
          cwd,
          history: a.history,
        });
      }
      return {
        provider,
        fallbacks,
        auxiliary,
        cwd: existing?.cwd ?? cwd,
        tools: deps.tools.enabled(toolsets),
        searchAttributes: deps.searchAttributes,
        nextSeq: await nextSeq(db, a.sessionId),
        maxIterations: config.file.agent.maxIterations,
        busyPolicy: config.file.agent.busyPolicy,
      };
    },

    /** The user message goes in first, durably; anything an unacknowledged attempt left after it is dropped. */
    async recordUserMessage(a: RecordUserMessageArgs): Promise<void> {
      await deleteFrom(db, a.sessionId, a.seq + 1);
      await writeMessage(db, a.sessionId, {
        seq: a.seq,
        role: 'user',
        content: a.text,
        turnId: a.turnId,
        messageId: a.messageId,
      });
      if (a.turn === 1) await setTitleIfMissing(db, a.sessionId, oneLine(a.text, 60));
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('turn.started', {
        turn: a.turn,
        messageId: a.messageId,
        sessionId: a.sessionId,
        text: oneLine(a.text, 200),
      });
      await pub.flush();
    },

    /** Synthetic messages (cancelled tool results, closing notes) never overwrite a real row. */
    async recordMessages(a: RecordMessagesArgs): Promise<void> {
      for (const m of a.messages) {
        await writeMessage(
          db,
          a.sessionId,
          {
            seq: m.seq,
            role: m.role,
            content: m.content,
            toolCallId: m.toolCallId,
            toolName: m.toolName,
            turnId: a.turnId,
            synthetic: true,
          },
          'keep',
        );
      }
    },

    async finishTurn(a: FinishTurnArgs): Promise<void> {
      await setSessionTotals(db, a.sessionId, a.result.usage.session, a.sessionApiCalls);
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('turn.ended', { result: a.result });
      await pub.flush();
    },

    async endConversation(a: EndConversationArgs): Promise<void> {
      await endSession(db, a.sessionId, a.reason);
      const pub = new EventPublisher(db, a.conversationId, '', deps.log);
      pub.emit('status', { kind: 'ended', message: `conversation ended: ${a.reason}` });
      await pub.flush();
    },
  };
}
