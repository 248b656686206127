import { useQueryClient } from '@tanstack/react-query';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { PropertyInput } from '../catalog/PropertyInput';
import '../catalog/catalog.css';
import { type CustomField, customFieldsApi, customFieldsKey, customFieldTypes } from './api';
import {
  type CustomFieldFormValues,
  customFieldBody,
  customFieldFormSchema,
  initialValues,
  type PropertiesDraft,
} from './form';
import { OptionsEditor } from './OptionsEditor';

/** Creates a custom field, or edits `field` (whose type cannot change). */
export function CustomFieldForm({ field }: { field?: CustomField }) {
  const queryClient = useQueryClient();
  const form = useApiForm<CustomFieldFormValues, CustomField>(
    initialValues(field),
    (values) =>
      field
        ? customFieldsApi.update(field.id, customFieldBody(values))
        : customFieldsApi.create(customFieldBody(values)),
    {
      schema: customFieldFormSchema(!field),
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: customFieldsKey });
        navigate('/custom-fields');
      },
    },
  );
  const { values, fieldErrors } = form;
  const properties = values.properties;
  const setProperty = <Key extends keyof PropertiesDraft>(key: Key, value: PropertiesDraft[Key]) =>
    form.setValue('properties', { ...properties, [key]: value });
  const text = (
    key:
      | 'form_label'
      | 'form_help_text'
      | 'form_placeholder'
      | 'min_length'
      | 'max_length'
      | 'ge'
      | 'le',
    label: string,
    extra: { type?: string; hint?: string } = {},
  ) => (
    <PropertyInput
      name={`properties.${key}`}
      label={label}
      errors={fieldErrors}
      value={properties[key]}
      onChange={(value) => setProperty(key, value)}
      {...extra}
    />
  );
  const boundType = values.type === 'date' ? 'date' : 'number';

  return (
    <Form
      form={form}
      submitLabel={field ? 'Save changes' : 'Create custom field'}
      actions={
        <Link to="/custom-fields" className="button">
          Cancel
        </Link>
      }
    >
      <SelectField
        form={form}
        name="type"
        label="Type"
        options={customFieldTypes}
        required
        disabled={Boolean(field)}
        hint={field ? 'A field keeps its type.' : undefined}
      />
      <TextField form={form} name="name" label="Name" required />
      <TextField
        form={form}
        name="slug"
        label="Slug"
        required
        hint="The key of the answer in custom_field_data: letters, digits, - and _."
      />
      {text('form_label', 'Label at checkout', { hint: 'Defaults to the name.' })}
      {text('form_help_text', 'Help text')}
      {values.type !== 'checkbox' && text('form_placeholder', 'Placeholder')}
      {values.type === 'text' && (
        <>
          <label className="checkbox-line">
            <input
              type="checkbox"
              checked={properties.textarea}
              onChange={(event) => setProperty('textarea', event.target.checked)}
            />
            Several lines (text area)
          </label>
          {text('min_length', 'Minimum length', { type: 'number' })}
          {text('max_length', 'Maximum length', { type: 'number' })}
        </>
      )}
      {(values.type === 'number' || values.type === 'date') && (
        <>
          {text('ge', values.type === 'date' ? 'Earliest date' : 'Minimum', { type: boundType })}
          {text('le', values.type === 'date' ? 'Latest date' : 'Maximum', { type: boundType })}
        </>
      )}
      {values.type === 'select' && (
        <OptionsEditor
          options={properties.options}
          errors={fieldErrors}
          onChange={(options) => setProperty('options', options)}
        />
      )}
    </Form>
  );
}
