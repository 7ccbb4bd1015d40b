/** `toolwire/json-schema`: placeholder entry until the JSON Schema registration lands here. */
export {};
