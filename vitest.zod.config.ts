import { mergeConfig } from 'vitest/config';
import base from './vitest.config';

const dir = process.env.ZOD_DIR as string;
export default mergeConfig(base, {
  resolve: { alias: [{ find: /^zod(\/.*)?$/, replacement: `${dir}/node_modules/zod$1` }] },
  test: { typecheck: { enabled: false } },
});
