import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The SQL of the service's own secrets (`service_secrets`: the CSRF and mail keys), shared by every replica. */
@Injectable()
export class ServiceSecretsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The secret of this name: `candidate` if none was kept yet, else the one kept first (replicas starting at once agree). */
  async keepFirst(name: string, candidate: string): Promise<string> {
    await this.dataSource.query(`INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
      name,
      candidate,
    ]);
    const [row] = (await this.dataSource.query(`SELECT value FROM service_secrets WHERE name = $1`, [name])) as [{ value: string }];
    return row.value;
  }
}
