/** A JSON Schema, as much of it as the form reads. */
export interface FieldSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, FieldSchema>;
  required?: string[];
  default?: unknown;
}

/**
 * A form generated from a tool's input schema: one field per top-level property — text, number,
 * checkbox or choice by its type, JSON for objects and arrays. Values are not checked here: the
 * gateway validates them exactly as for an agent, and its `validation_input` names the bad path.
 */
export function SchemaForm(props: {
  schema: FieldSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
}) {
  const properties = Object.entries(props.schema.properties ?? {});
  if (properties.length === 0) return <p>This tool takes no arguments.</p>;
  const set = (name: string, v: unknown) => {
    const next = { ...props.value };
    if (v === undefined) delete next[name];
    else next[name] = v;
    props.onChange(next);
  };
  return (
    <div>
      {properties.map(([name, field]) => {
        const id = `arg-${name}`;
        const type = Array.isArray(field.type) ? field.type[0] : field.type;
        const required = props.schema.required?.includes(name) ?? false;
        const current = props.value[name];
        const label = (
          <label for={id}>
            {name}
            {required ? ' (required)' : ''}
            {type ? ` — ${type}` : ''}
          </label>
        );
        const help = field.description ? <small id={`${id}-help`}>{field.description}</small> : null;
        const described = field.description ? { 'aria-describedby': `${id}-help` } : {};
        if (field.enum) {
          return (
            <div key={name}>
              {label}
              <select
                id={id}
                {...described}
                value={current === undefined ? '' : JSON.stringify(current)}
                onChange={(e) => {
                  const raw = (e.target as HTMLSelectElement).value;
                  set(name, raw === '' ? undefined : JSON.parse(raw));
                }}
              >
                <option value="">(unset)</option>
                {field.enum.map((option) => (
                  <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
              {help}
            </div>
          );
        }
        if (type === 'boolean') {
          return (
            <div key={name}>
              {label}
              <input
                id={id}
                type="checkbox"
                {...described}
                checked={current === true}
                onChange={(e) => set(name, (e.target as HTMLInputElement).checked)}
              />
              {help}
            </div>
          );
        }
        if (type === 'object' || type === 'array') {
          return (
            <div key={name}>
              {label}
              <textarea
                id={id}
                rows={3}
                {...described}
                defaultValue={current === undefined ? '' : JSON.stringify(current)}
                onInput={(e) => {
                  const raw = (e.target as HTMLTextAreaElement).value;
                  try {
                    set(name, raw.trim() ? JSON.parse(raw) : undefined);
                  } catch {
                    // Not JSON (yet): sent as the text typed, so the gateway names the bad value.
                    set(name, raw);
                  }
                }}
              />
              {help}
            </div>
          );
        }
        const numeric = type === 'number' || type === 'integer';
        return (
          <div key={name}>
            {label}
            <input
              id={id}
              type="text"
              inputMode={numeric ? 'decimal' : undefined}
              {...described}
              value={current === undefined ? '' : String(current)}
              onInput={(e) => {
                const raw = (e.target as HTMLInputElement).value;
                // A number field holding something that is not a number is sent as typed: the
                // gateway's validation error is what the user should see.
                set(
                  name,
                  raw === ''
                    ? undefined
                    : numeric && raw.trim() !== '' && !Number.isNaN(Number(raw))
                      ? Number(raw)
                      : raw,
                );
              }}
            />
            {help}
          </div>
        );
      })}
    </div>
  );
}
