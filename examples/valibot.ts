/** A tool whose parameters are a valibot schema (any Standard Schema works). Run: npx tsx examples/valibot.ts */
import { Agent, tool } from 'toolwire';
import * as v from 'valibot';
import { answerWithLastOutput, runExample } from './run-example';

const signup = tool({
  name: 'create_account',
  description: 'Create a user account.',
  parameters: v.object({
    email: v.pipe(v.string(), v.email()),
    plan: v.optional(v.picklist(['free', 'pro']), 'free'),
  }),
  execute: ({ email, plan }) => `Created ${plan} account for ${email}`,
});

await runExample({
  agent: new Agent({ name: 'Onboarding', instructions: 'Create accounts.', tools: [signup] }),
  input: 'Sign me up: grace@example.com',
  script: [
    { toolCalls: [{ name: 'create_account', arguments: { email: 'grace at example.com' } }] },
    { toolCalls: [{ name: 'create_account', arguments: { email: 'grace@example.com' } }] },
    answerWithLastOutput,
  ],
});
