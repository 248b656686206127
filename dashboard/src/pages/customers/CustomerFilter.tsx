import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useQueryState } from '../../router';
import { fetchCustomer, fetchCustomers } from './api';
import '../orders/sales.css';

const searchDelayMs = 300;

const paging = new Set(['page', 'limit', 'sorting']);

/** Whether the URL filters a list (anything but its paging and sorting): "no match" or "none yet". */
export const isFiltered = (params: URLSearchParams) =>
  [...params.keys()].some((name) => !paging.has(name));

/**
 * A list filter by customer, kept in the URL as `customer_id`: a search box suggesting
 * customers by email or name (the browser's own suggestion list, keyboard-ready), or, once one
 * is chosen, the customer's email with a button to clear it. Customers are too many for a select.
 */
export function CustomerFilter() {
  const [params, setParams] = useQueryState();
  const customerId = params.get('customer_id');
  const choose = (id: string | null) => setParams({ customer_id: id, page: null });
  return customerId ? (
    <ChosenCustomer id={customerId} onClear={() => choose(null)} />
  ) : (
    <CustomerSearch onChoose={choose} />
  );
}

function ChosenCustomer({ id, onClear }: { id: string; onClear: () => void }) {
  const customer = useQuery({
    queryKey: ['customer', id],
    queryFn: ({ signal }) => fetchCustomer(id, signal),
  });
  return (
    <span className="filter-chip">
      Customer: <strong>{customer.data?.email ?? (customer.isError ? 'unknown' : '…')}</strong>{' '}
      <button type="button" className="button" onClick={onClear}>
        Clear<span className="visually-hidden"> customer filter</span>
      </button>
    </span>
  );
}

function CustomerSearch({ onChoose }: { onChoose: (id: string) => void }) {
  const id = useId();
  const [text, setText] = useState('');
  const [searched, setSearched] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearched(text.trim()), searchDelayMs);
    return () => clearTimeout(timer);
  }, [text]);
  const matches = useQuery({
    queryKey: ['customers', 'suggestions', searched],
    queryFn: ({ signal }) => fetchCustomers({ query: searched, limit: 10 }, signal),
    enabled: searched.length > 0,
  });
  const change = (value: string) => {
    setText(value);
    const chosen = matches.data?.items.find((customer) => customer.email === value);
    if (chosen) onChoose(chosen.id);
  };
  return (
    <label htmlFor={`${id}-input`}>
      Customer{' '}
      <input
        id={`${id}-input`}
        type="search"
        list={`${id}-list`}
        placeholder="Email or name"
        value={text}
        onChange={(event) => change(event.target.value)}
      />
      <datalist id={`${id}-list`}>
        {matches.data?.items.map((customer) => (
          <option key={customer.id} value={customer.email}>
            {customer.name ?? ''}
          </option>
        ))}
      </datalist>
    </label>
  );
}
