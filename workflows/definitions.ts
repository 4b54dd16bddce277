/**
 * Signal, update and query definitions of the conversation workflow. Their names are public API
 * (README, `temporal workflow signal --name …`); clients import these definitions to stay typed.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConversationStateView, SendMessageInput, TurnResult } from '../common/contract.js';

export const userMessageSignal = defineSignal<[unknown]>('userMessage');
export const stopSignal = defineSignal<[unknown?]>('stop');
export const steerSignal = defineSignal<[unknown]>('steer');
export const endSignal = defineSignal<[unknown?]>('end');
export const sendMessageUpdate = defineUpdate<TurnResult, [SendMessageInput]>('sendMessage');
export const stateQuery = defineQuery<ConversationStateView>('state');
