# Empty child module used by dynamic-module-sources tests
