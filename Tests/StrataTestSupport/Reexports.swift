// The tests reach the private PostgreSQL cluster through the test support module.
@_exported import PrivatePostgres
