// @nestjs/throttler is CommonJS and require()s NestJS's ES modules; jest 30 supports require(esm)
// (Node ≥ 24.9) but not in a cycle, which is what it meets when a test file's own import graph loads
// both at once. Loading NestJS first, here, breaks the cycle.
import '@nestjs/common';
import '@nestjs/core';
