-- A budget per Principal across all of its agents (issue 16, docs/principal-budget.md).
--
-- Escrow: the budget of each window is a pool (principal_budget_pools) from which slices are
-- handed to the agents' actors (principal_budget_slices, one per agent and window). An actor
-- approves only within its slice, in memory; a slice grows only by asas_budget_grant, one
-- conditional change of the pool row:
--
--     pool.granted + grant <= budget.amount + pool.credited
--
-- and pool.granted is the sum of its slices' granted (both change in the same transaction).
-- An agent's spend in the window (its APPROVE rows in the budget's currency, holds included)
-- never passes its slice: one actor decides for an agent, and its audit batches commit only
-- under its shard's current epoch (migrations/0140). So the fleet's spend, less what
-- settlements gave back (pool.credited), never passes the budget, whatever shard or instance
-- each agent lives on. Grants and returns of slack are fenced like audit batches, so a lost
-- shard lease neither loses nor doubles escrow: the slice stays in PostgreSQL with the agent,
-- and the next owner reads it.
create sequence principal_budget_versions;
create table principal_budgets (
  principal_id text primary key references principals (id),
  amount numeric not null check (amount > 0),
  currency text not null,
  budget_window text not null check (budget_window in ('day', 'week', 'month', 'year')),
  -- Share of the budget at which principal_budget.threshold_reached is emitted.
  alert_share numeric not null default 0.8 check (alert_share > 0 and alert_share <= 1),
  -- Spend counts from here (a budget set mid-window counts from the moment it was set).
  effective_from timestamptz not null default now(),
  -- New at every change: an actor that loaded an older version reloads before its next grant.
  version bigint not null default nextval('principal_budget_versions'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table principal_budget_pools (
  principal_id text not null,
  -- The window's start in the Principal's time zone (src/engine/pipeline/calendar.ts windowsOf).
  window_start timestamptz not null,
  granted numeric not null default 0 check (granted >= 0),
  credited numeric not null default 0 check (credited >= 0),
  recalled_at timestamptz,
  threshold_at timestamptz,
  exhausted_at timestamptz,
  primary key (principal_id, window_start)
);

create table principal_budget_slices (
  principal_id text not null,
  window_start timestamptz not null,
  agent_id text not null,
  granted numeric not null default 0 check (granted >= 0),
  updated_at timestamptz not null default now(),
  primary key (principal_id, window_start, agent_id)
);

-- Grants and returns commit without waiting for the WAL flush (synchronous_commit off): the
-- pool row stays locked only while the statement runs, not for an fsync. That is safe: a
-- decision that spends a grant is recorded by an audit batch that commits synchronously later in
-- the WAL, so whenever that decision survives a crash the grant before it survives too; a lost
-- grant was spent by nothing recorded, and a lost return leaves the slack in the agent's slice
-- (read again at the actor's next load), never in two places.
--
-- Grows an agent's slice by p_need plus up to p_extra (never more than a quarter of what the
-- pool has left beyond p_need, rounded down to p_unit, and nothing once fewer than 8 p_extra
-- are left), when the pool has p_need left. The
-- pool row is locked for the change (grants of one Principal are serialised; approvals are
-- not: they spend slices in memory). When the pool is short the slice is left as it is, the
-- pool notes it (exhausted_at once per window), and at most once a second the other actors
-- of the Principal are asked to give their slack back (NOTIFY asas_budget_recall).
-- status: 'granted' | 'short' | 'stale' (the budget changed since the actor loaded it, or was
-- removed: reload); recalled: this call asked the other actors for their slack.
create function asas_budget_grant(
  p_principal text, p_agent text, p_window_start timestamptz, p_version bigint, p_need numeric,
  p_extra numeric, p_unit numeric, p_shards int[], p_epochs bigint[])
returns table (status text, grant_amount numeric, slice numeric, available numeric,
  first_threshold boolean, first_exhausted boolean, budget_amount numeric, recalled boolean)
language plpgsql as $$
declare
  b principal_budgets;
  p principal_budget_pools;
  avail numeric;
  g numeric;
  s numeric;
  recall boolean;
  thr boolean := false;
begin
  perform set_config('synchronous_commit', 'off', true);
  if p_shards is not null then
    perform asas_assert_fences(p_shards, p_epochs);
  end if;
  select * into b from principal_budgets where principal_id = p_principal;
  if not found or b.version <> p_version then
    return query select 'stale'::text, 0::numeric, 0::numeric, 0::numeric, false, false, 0::numeric, false;
    return;
  end if;
  insert into principal_budget_pools (principal_id, window_start) values (p_principal, p_window_start)
    on conflict do nothing;
  select * into p from principal_budget_pools
    where principal_id = p_principal and window_start = p_window_start for update;
  avail := b.amount + p.credited - p.granted;
  if p_need = 0 and avail <= 0 then
    -- A prefetch (no request waiting) finds nothing to take.
    return query select 'short'::text, 0::numeric, 0::numeric, 0::numeric, false, false, b.amount, false;
    return;
  end if;
  if avail < p_need then
    recall := p.recalled_at is null or p.recalled_at < now() - interval '1 second';
    -- The first short grant of a round asks for the slack of the others and is tried again
    -- (src/engine/actors.ts): only a short grant after it counts as the pool exhausted.
    if recall or p.exhausted_at is null then
      update principal_budget_pools
        set exhausted_at = case when recall then exhausted_at else coalesce(exhausted_at, now()) end,
            recalled_at = case when recall then now() else recalled_at end
        where principal_id = p_principal and window_start = p_window_start;
    end if;
    if recall then
      perform pg_notify('asas_budget_recall', p_principal);
    end if;
    select granted into s from principal_budget_slices
      where principal_id = p_principal and window_start = p_window_start and agent_id = p_agent;
    return query select 'short'::text, 0::numeric, coalesce(s, 0), greatest(avail, 0), false,
      not recall and p.exhausted_at is null, b.amount, recall;
    return;
  end if;
  -- The speculative part: none once less than 8 of them are left (the last grants are exact,
  -- so little slack sits in other agents' slices when the pool runs dry).
  g := p_need + case when avail - p_need < 8 * p_extra then 0
                     else least(p_extra, trunc((avail - p_need) / 4 / p_unit) * p_unit) end;
  if g > 0 then
    thr := p.threshold_at is null and (p.granted + g - p.credited) >= b.amount * b.alert_share;
    update principal_budget_pools
      set granted = granted + g, threshold_at = case when thr then now() else threshold_at end
      where principal_id = p_principal and window_start = p_window_start;
  end if;
  insert into principal_budget_slices (principal_id, window_start, agent_id, granted)
    values (p_principal, p_window_start, p_agent, g)
    on conflict (principal_id, window_start, agent_id)
    do update set granted = principal_budget_slices.granted + g, updated_at = now()
    returning principal_budget_slices.granted into s;
  return query select 'granted'::text, g, s, avail - g, thr, false, b.amount, false;
end $$;

-- Gives p_amount of an agent's slice back to its pool (slack the actor will not spend).
create function asas_budget_return(
  p_principal text, p_agent text, p_window_start timestamptz, p_amount numeric, p_shards int[],
  p_epochs bigint[])
returns boolean
language plpgsql as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  if p_shards is not null then
    perform asas_assert_fences(p_shards, p_epochs);
  end if;
  -- The pool row first, as a grant takes it: a grant and a return of one agent never wait for
  -- each other crosswise.
  perform 1 from principal_budget_pools
    where principal_id = p_principal and window_start = p_window_start for update;
  update principal_budget_slices set granted = granted - p_amount, updated_at = now()
    where principal_id = p_principal and window_start = p_window_start and agent_id = p_agent
      and granted >= p_amount;
  if not found then
    return false;
  end if;
  update principal_budget_pools set granted = granted - p_amount
    where principal_id = p_principal and window_start = p_window_start;
  return true;
end $$;

-- What a settlement gives back (the rest of a partial capture, a release, an expiry, a refund)
-- of an authorization that counted in the Principal's budget (its currency, decided since the
-- budget took effect) goes back to the pool of the window it counted in: the newest pool that
-- started at or before the authorization. Called in the settlement's transaction
-- (src/runtime/holds-store.ts).
create function asas_budget_credit(
  p_principal text, p_currency text, p_authorized_at timestamptz, p_amount numeric)
returns void
language plpgsql as $$
begin
  if p_amount <= 0 then
    return;
  end if;
  update principal_budget_pools p set credited = credited + p_amount
  from principal_budgets b
  where b.principal_id = p_principal and b.currency = p_currency and b.effective_from <= p_authorized_at
    and p.principal_id = p_principal
    and p.window_start = (select max(window_start) from principal_budget_pools
                          where principal_id = p_principal and window_start <= p_authorized_at);
end $$;
