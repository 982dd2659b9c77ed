/*
 * The config sections' value schemas live in foundation/ (the source drivers' entry schemas in
 * sources/ are built from them too); re-exported here so the sections import them from one place.
 */
export * from '../foundation/schema/config-values.js';
