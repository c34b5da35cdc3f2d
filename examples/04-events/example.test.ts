import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname);
