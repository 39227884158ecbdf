//! Importers that turn an API description into toolgate config.

pub mod openapi;
