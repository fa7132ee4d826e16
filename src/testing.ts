/**
 * `modelwire/testing`: what users need to test code that calls providers, without network or keys.
 *
 * @module
 */
export {
  type FakeCall,
  type FakeFailure,
  FakeProvider,
  type FakeProviderSettings,
  type FakeReply,
  FakeScriptExhaustedError,
  type FakeStep,
  type FakeStream,
} from "./core/fake-provider.ts";
