/**
 * `session_search`: full-text search over earlier conversations (docs/long-conversations.md), through the
 * `tsvector` column and GIN index of the messages table. The current conversation is left out:
 * its context is already in front of the model, and so are child-agent sessions (their reports
 * reached the conversation that delegated them; they were never conversations with the user).
 */
import { z } from 'zod';
import { oneLine } from '../../common/text.js';
import { defineTool } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

interface Hit {
  session_id: string;
  title: string | null;
  started_at: Date;
  role: string;
  snippet: string;
}

export const sessionSearchTool = defineTool({
  name: 'session_search',
  toolset: 'session_search',
  // Earlier sessions hold quoted tool output and pasted text: what comes back is data.
  untrusted: 'external',
  description:
    'Search earlier conversations with the user (full text; quotes for phrases, -word to exclude). Use it to recall ' +
    'past decisions, fixes and preferences. Returns matching sessions with snippets.',
  parameters: z
    .object({
      query: z.string().min(1).max(500),
      limit: z.number().int().min(1).max(20).optional().describe('How many sessions (default 5)'),
    })
    .strict(),
  traits: TRAITS.reads,
  summarize: (a) => `session_search: ${oneLine(a.query, 80)}`,
  timeoutSeconds: () => 30,
  async handler(a, ctx) {
    const db = ctx.db;
    if (!db) return { content: 'session_search is not available on this worker', isError: true };
    const r = await db.query<Hit>(
      `SELECT DISTINCT ON (m.session_id) m.session_id, s.title, s.started_at, m.role,
              ts_headline('simple', m.content, q, 'MaxFragments=2, MaxWords=18, MinWords=6, StartSel=«, StopSel=»') AS snippet
         FROM messages m
         JOIN sessions s ON s.id = m.session_id,
              websearch_to_tsquery('simple', $1) q
        WHERE m.search @@ q AND s.conversation_id <> $2 AND s.source <> 'subagent' AND m.role IN ('user', 'assistant')
        ORDER BY m.session_id, ts_rank(m.search, q) DESC`,
      [a.query, ctx.conversationId ?? ''],
    );
    const hits = r.rows.sort((x, y) => y.started_at.getTime() - x.started_at.getTime()).slice(0, a.limit ?? 5);
    if (!hits.length) return { content: `No earlier conversation matches "${a.query}".` };
    return {
      content: [
        `${hits.length} earlier session(s) match "${a.query}":`,
        ...hits.map(
          (h) =>
            `- ${h.session_id} (${h.started_at.toISOString().slice(0, 10)}${h.title ? `, "${h.title}"` : ''}) ${h.role}: ${oneLine(h.snippet, 300)}`,
        ),
      ].join('\n'),
    };
  },
});
