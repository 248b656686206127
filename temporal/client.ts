import { Client, Connection } from '@temporalio/client';

export interface TemporalSettings {
  address: string;
  namespace: string;
}

/** A Temporal client; close it with `client.connection.close()`. */
export async function connectTemporal({ address, namespace }: TemporalSettings): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}
