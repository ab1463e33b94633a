// TEST DOUBLE. Part of the dev chain that stands in for a subtensor node in tests and demos.
// The runtime "shape" of the double: the REAL finney metadata (spec 424) drives every key, value, call and
// event encoding, so what @polkadot/api reads and writes here is byte-compatible with the live chain.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DecoratedMeta } from '@polkadot/types/metadata/decorate/types';

const { Metadata, TypeRegistry, expandMetadata } = polkadot('@polkadot/types');
const { compactStripLength, u8aConcat, u8aToHex } = polkadot('@polkadot/util');
type TypeRegistry = InstanceType<typeof TypeRegistry>;
type Metadata = InstanceType<typeof Metadata>;

export const METADATA_PATH = fileURLToPath(new URL('../../fixtures/chain/finney-metadata.scale', import.meta.url));

export interface RuntimeVersionJson {
  specName: string;
  implName: string;
  authoringVersion: number;
  specVersion: number;
  implVersion: number;
  apis: [string, number][];
  transactionVersion: number;
  systemVersion: number;
}

export interface DevRuntime {
  registry: TypeRegistry;
  metadata: Metadata;
  /** The raw metadata bytes, as `state_getMetadata` returns them (magic + version + V16 body). */
  metadataBytes: Uint8Array;
  decorated: DecoratedMeta;
  version: RuntimeVersionJson;
  /** Full storage key for `section.method(args)`; map keys go in order, hashed with the metadata's hashers. */
  storageKey(section: string, method: string, ...args: unknown[]): string;
  /** SCALE bytes of a storage value, typed by the metadata. */
  encodeStorageValue(section: string, method: string, value: unknown): Uint8Array;
  /** The ModuleError the chain would put in ExtrinsicFailed for `pallet.errorName`. */
  moduleError(pallet: string, errorName: string): { index: number; error: Uint8Array };
  /** An event's bytes: [pallet index, variant index] ‖ fields encoded with their metadata types. */
  encodeEvent(pallet: string, eventName: string, fields: unknown[]): Uint8Array;
}

let cached: DevRuntime | undefined;

/** Parsing 330 KB of metadata takes a few hundred ms: one runtime per process is plenty (it is read-only). */
export function loadDevRuntime(): DevRuntime {
  if (cached) return cached;
  const metadataBytes = new Uint8Array(readFileSync(METADATA_PATH));
  const registry = new TypeRegistry();
  const metadata = new Metadata(registry, metadataBytes);
  registry.setMetadata(metadata);
  const decorated = expandMetadata(registry, metadata);
  const version = decorated.consts['system']?.['version']?.toJSON() as unknown as RuntimeVersionJson;

  const entry = (section: string, method: string) => {
    const e = decorated.query[section]?.[method];
    if (!e) throw new Error(`dev chain: no storage ${section}.${method} in the metadata`);
    return e;
  };
  const pallet = (name: string) => {
    const p = metadata.asLatest.pallets.find((x) => x.name.toString() === name);
    if (!p) throw new Error(`dev chain: no pallet ${name}`);
    return p;
  };
  const keyCache = new Map<string, string>();
  const variants = (typeId: number) => registry.lookup.getSiType(typeId).def.asVariant.variants;

  cached = {
    registry,
    metadata,
    metadataBytes,
    decorated,
    version,
    storageKey(section, method, ...args) {
      // Hashing keys dominates a block's projection; the same keys come back every block.
      const memo = `${section}.${method}:${args.map(String).join(',')}`;
      const hit = keyCache.get(memo);
      if (hit) return hit;
      const key = u8aToHex(compactStripLength(entry(section, method)(...args))[1]);
      keyCache.set(memo, key);
      return key;
    },
    encodeStorageValue(section, method, value) {
      const t = entry(section, method).meta.type;
      const id = t.isPlain ? t.asPlain : t.asMap.value;
      return registry.createType(registry.createLookupType(id), value).toU8a();
    },
    moduleError(palletName, errorName) {
      const p = pallet(palletName);
      if (p.errors.isNone) throw new Error(`dev chain: pallet ${palletName} has no errors`);
      const v = variants(p.errors.unwrap().type.toNumber()).find((x) => x.name.toString() === errorName);
      if (!v) throw new Error(`dev chain: no error ${palletName}.${errorName}`);
      return { index: p.index.toNumber(), error: new Uint8Array([v.index.toNumber(), 0, 0, 0]) };
    },
    encodeEvent(palletName, eventName, fields) {
      const p = pallet(palletName);
      if (p.events.isNone) throw new Error(`dev chain: pallet ${palletName} has no events`);
      const v = variants(p.events.unwrap().type.toNumber()).find((x) => x.name.toString() === eventName);
      if (!v) throw new Error(`dev chain: no event ${palletName}.${eventName}`);
      if (v.fields.length !== fields.length) throw new Error(`dev chain: ${eventName} takes ${v.fields.length} fields`);
      const parts = v.fields.map((f, i) => registry.createType(registry.createLookupType(f.type), fields[i]).toU8a());
      return u8aConcat(new Uint8Array([p.index.toNumber(), v.index.toNumber()]), ...parts);
    },
  };
  return cached;
}
