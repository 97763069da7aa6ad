import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Database } from './database';
import { dataSourceOptions } from './database';

/**
 * Wires an already opened (and migrated) Database into Nest: the Database itself for health checks, and
 * TypeORM's DataSource and repositories through @nestjs/typeorm. The Database is opened before Nest starts, so
 * that migrations have run before any module's start-up hook touches a table.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: Database): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSourceOptions('postgres://unused', 1),
          // The app owns the DataSource's life: Database.close() destroys it after Nest has shut down.
          dataSourceFactory: async () => database.dataSource,
        }),
      ],
      providers: [{ provide: Database, useValue: database }],
      exports: [Database],
    };
  }
}
