import { defineSignal } from '@temporalio/workflow';
import type { PaymentOutcome } from '../domain/payments.ts';

/** Stripe's word on a payment, for the workflow its PaymentIntent names (a checkout, a renewal). */
export const paymentOutcomeSignal = defineSignal<[PaymentOutcome]>('paymentOutcome');
