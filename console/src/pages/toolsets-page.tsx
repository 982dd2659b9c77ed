import { useState } from 'preact/hooks';
import { api, errorText, type SkillList, type ToolsetList, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { EmptyState, ErrorState, LoadingState } from '../ui/states.js';

/** Toolsets with their members, and skills with their steps, a plan and a link to run them. */
export function ToolsetsPage() {
  const listed = useApi<ToolsetList>('/api/admin/toolsets');
  const visible = useApi<SkillList>('/api/admin/skills');
  const toolsets = listed.data?.toolsets;
  const skills = visible.data?.skills;
  const [plan, setPlan] = useState<{ skill: string; text: string } | undefined>();
  const [planError, setPlanError] = useState<string | undefined>();
  const error = planError;
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
      <div class="page-head">
        <div>
          <h2 id="toolsets-title">Toolsets and skills</h2>
          <p>The toolsets you may use, each served at its own endpoint, and the skills you can run.</p>
        </div>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <h3>Toolsets</h3>
      {listed.failure ? (
        <ErrorState failure={listed.failure} what="The toolsets" onRetry={() => void listed.reload()} />
      ) : !toolsets ? (
        <LoadingState what="Loading the toolsets…" />
      ) : toolsets.length === 0 ? (
        <EmptyState title="No toolsets configured" icon="toolsets">
          A toolset serves a chosen part of the catalog at an endpoint of its own: add one under{' '}
          <code>toolsets:</code> in the config.
        </EmptyState>
      ) : (
        toolsets.map((toolset) => (
          <details key={toolset.name} class="card toolset" data-testid={`toolset-${toolset.name}`}>
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
      {visible.failure ? (
        <ErrorState failure={visible.failure} what="The skills" onRetry={() => void visible.reload()} />
      ) : !skills ? (
        <LoadingState what="Loading the skills…" />
      ) : skills.length === 0 ? (
        <EmptyState title="No skills you can see" icon="play">
          A skill chains tool calls into one named recipe: add one under <code>skills:</code> in the config.
        </EmptyState>
      ) : (
        <div class="grid-2">
          {skills.map((skill) => (
            <article key={skill.name} class="card skill" aria-label={`Skill ${skill.name}`}>
              <h4>{skill.title ? `${skill.title} (${skill.name})` : skill.name}</h4>
              <p class="muted">{skill.description}</p>
              <ol>
                {skill.steps.map((step) => (
                  <li key={step.id}>
                    {step.id}: <code>{step.tool}</code>
                    {step.description ? ` — ${step.description}` : ''}
                  </li>
                ))}
              </ol>
              <p class="actions">
                <button type="button" class="secondary small" onClick={() => planSkill(skill.name)}>
                  Plan {skill.name}
                </button>
                <a href={`#/tool/${encodeURIComponent(skill.tool_id)}`}>
                  <Icon name="play" /> Run {skill.name}
                </a>
              </p>
              {plan?.skill === skill.name && <pre data-testid="skill-plan">{plan.text}</pre>}
            </article>
          ))}
        </div>
      )}
    </section>
  );
}
