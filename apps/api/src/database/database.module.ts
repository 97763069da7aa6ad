import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Database } from './database';

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
          // The options the Database was opened with (its entities among them); the data source itself is reused.
          useFactory: () => database.dataSource.options,
          // TypeORM destroys it when Nest shuts down (onApplicationShutdown); work that must reach the database
          // at shutdown runs in beforeApplicationShutdown. Database.close() then stops the embedded server.
          dataSourceFactory: async () => database.dataSource,
        }),
      ],
      providers: [{ provide: Database, useValue: database }],
      exports: [Database],
    };
  }
}
