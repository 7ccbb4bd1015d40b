/**
 * Questions: a tool asks the user and waits, without holding a concurrency slot. Here `onQuestion` plays the
 * user in this process; without it the service asks in its UI (or over its HTTP API). A declined question is a
 * `QuestionError` the tool handles: the call goes on. Run: npx tsx examples/ask-question.ts
 */
import { Agent, QuestionError, tool } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

const shipExport = tool({
  name: 'ship_export',
  description: 'Ships the latest export to a warehouse.',
  execute: async (_input, ctx) => {
    const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon', 'Oslo'] });
    const copies = await ctx.askQuestion('How many copies?', { schema: z.coerce.number().int().min(1) });
    let note = 'no cover letter';
    try {
      note = `cover letter: ${await ctx.askQuestion('What should the cover letter say?')}`;
    } catch (error) {
      // Declined: this tool goes on without one (Assembly Line's askQuestion would end the call here).
      if (!(error instanceof QuestionError)) throw error;
      note = `no cover letter (${error.code}: ${error.reason ?? error.message})`;
    }
    return `shipped ${copies} copies to ${warehouse}, ${note}`;
  },
});

/** The user, played here: answers per question. */
const answers: Record<string, { answer: unknown } | { declined: true; reason?: string }> = {
  'Which warehouse?': { answer: 'Lyon' },
  'How many copies?': { answer: '2' },
  'What should the cover letter say?': { declined: true, reason: 'no time' },
};

await runExample({
  agent: new Agent({ name: 'Shipper', instructions: 'Ship exports.', tools: [shipExport] }),
  input: 'Ship the export.',
  script: [{ toolCalls: [{ name: 'ship_export', arguments: {} }] }, answerWithLastOutput],
  onQuestion: async (request) => {
    const reply = answers[request.question] ?? { declined: true };
    const shown = 'answer' in reply ? JSON.stringify(reply.answer) : `declined (${reply.reason ?? ''})`;
    console.log(
      `question ${request.questionId}: ${request.question}${request.choices ? ` [${request.choices.join(', ')}]` : ''} → ${shown}`,
    );
    return reply;
  },
});
