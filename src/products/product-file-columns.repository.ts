import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** The columns of her own per-product spreadsheet a client named once (migration ProductFileColumns): field code → header key. */
@Injectable()
export class ProductFileColumnsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(clientId: string): Promise<Record<string, string> | undefined> {
    const rows: { columns: Record<string, string> }[] = await this.dataSource.query(
      `SELECT columns FROM product_file_columns WHERE client_id = $1`,
      [clientId],
    );
    return rows[0]?.columns;
  }

  async save(clientId: string, columns: Record<string, string>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO product_file_columns (client_id, columns) VALUES ($1, $2::jsonb)
       ON CONFLICT (client_id) DO UPDATE SET columns = EXCLUDED.columns, updated_at = now()`,
      [clientId, JSON.stringify(columns)],
    );
  }
}
