import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useLayoutEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { FieldIdScope } from '../../checkout/fields';
import { Form, useApiForm } from '../../components/Form';
import { type Benefit, benefitsApi, benefitsKey } from '../benefits/api';
import { BenefitFields } from '../benefits/BenefitFields';
import {
  type BenefitFormValues,
  benefitBody,
  benefitFormSchema,
  initialValues,
} from '../benefits/form';

interface NewBenefitDialogProps {
  onCreated: (benefit: Benefit) => void;
  onClose: () => void;
}

/**
 * Creates a benefit without leaving the product form: the benefit pages' fields in a modal
 * dialog (focus kept inside, Escape closes it, focus back where it was), rendered while open.
 * Its form goes at the end of the body, since a form inside the product's form is not valid
 * HTML; its submit event still bubbles through React to the product's form, so it stops here.
 */
export function NewBenefitDialog({ onCreated, onClose }: NewBenefitDialogProps) {
  const queryClient = useQueryClient();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const form = useApiForm<BenefitFormValues, Benefit>(
    initialValues(),
    (values) => benefitsApi.create(benefitBody(values)),
    {
      schema: benefitFormSchema,
      onSuccess: async (benefit) => {
        await queryClient.invalidateQueries({ queryKey: benefitsKey });
        onCreated(benefit);
      },
    },
  );
  // A layout effect: closed while still in the document, so the browser returns focus.
  useLayoutEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const submit = (event?: FormEvent) => {
    event?.stopPropagation();
    form.submit(event);
  };

  return createPortal(
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!form.pending) onClose();
      }}
    >
      <h2 id={titleId}>New benefit</h2>
      <FieldIdScope value="new-benefit.">
        <Form
          form={{ ...form, submit }}
          submitLabel="Create benefit"
          actions={
            <button type="button" className="button" onClick={onClose} disabled={form.pending}>
              Cancel
            </button>
          }
        >
          <BenefitFields form={form} />
        </Form>
      </FieldIdScope>
    </dialog>,
    document.body,
  );
}
