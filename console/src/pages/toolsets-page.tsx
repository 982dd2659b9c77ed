import { useState } from 'preact/hooks';
import { api, errorText, type SkillList, type ToolsetList, useApi } from '../api.js';

/** Toolsets with their members, and skills with their steps, a plan and a link to run them. */
export function ToolsetsPage() {
  const listed = useApi<ToolsetList>('/api/admin/toolsets');
  const visible = useApi<SkillList>('/api/admin/skills');
  const toolsets = listed.data?.toolsets;
  const skills = visible.data?.skills ?? [];
  const [plan, setPlan] = useState<{ skill: string; text: string } | undefined>();
  const [planError, setPlanError] = useState<string | undefined>();
  const error = planError ?? listed.error ?? visible.error;
  const planSkill = async (name: string) => {
    try {
      const answer = await api<unknown>(`/api/admin/skills/${encodeURIComponent(name)}/plan`, {
        method: 'POST',
        body: { inputs: {} },
      });
      setPlan({ skill: name, text: JSON.stringify(answer, null, 2) });
    } catch (e) {
      setPlanError(errorText(e));
    }
  };
  return (
    <section aria-labelledby="toolsets-title">
      <h2 id="toolsets-title">Toolsets and skills</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <h3>Toolsets</h3>
      {!toolsets ? (
        <p>Loading…</p>
      ) : toolsets.length === 0 ? (
        <p>No toolsets configured.</p>
      ) : (
        toolsets.map((toolset) => (
          <details key={toolset.name} data-testid={`toolset-${toolset.name}`}>
            <summary>
              {toolset.name} — {toolset.toolCount} tools, served at <code>{toolset.endpoint}</code>
              {toolset.description ? ` — ${toolset.description}` : ''}
            </summary>
            <ul>
              {toolset.members.map((id) => (
                <li key={id}>
                  <a href={`#/tool/${encodeURIComponent(id)}`}>{id}</a>
                </li>
              ))}
            </ul>
          </details>
        ))
      )}
      <h3>Skills</h3>
      {skills.length === 0 ? (
        <p>No skills you can see.</p>
      ) : (
        skills.map((skill) => (
          <article key={skill.name} aria-label={`Skill ${skill.name}`}>
            <h4>{skill.title ? `${skill.title} (${skill.name})` : skill.name}</h4>
            <p>{skill.description}</p>
            <ol>
              {skill.steps.map((step) => (
                <li key={step.id}>
                  {step.id}: <code>{step.tool}</code>
                  {step.description ? ` — ${step.description}` : ''}
                </li>
              ))}
            </ol>
            <p>
              <button type="button" class="secondary" onClick={() => planSkill(skill.name)}>
                Plan {skill.name}
              </button>{' '}
              <a href={`#/tool/${encodeURIComponent(skill.tool_id)}`}>Run {skill.name}</a>
            </p>
            {plan?.skill === skill.name && <pre data-testid="skill-plan">{plan.text}</pre>}
          </article>
        ))
      )}
    </section>
  );
}
