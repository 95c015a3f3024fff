/**
 * @module The tenant the console works in, in the header: only the tenants the caller may use (GET
 * /api/me), shown when there is more than one. Picking one reloads the page's data for that tenant.
 */
export interface TenantPickerProps {
  readonly tenants: readonly string[];
  readonly tenant: string;
  readonly onChange: (tenantId: string) => void;
}

export function TenantPicker({ tenants, tenant, onChange }: TenantPickerProps) {
  return (
    <div class="tenant-picker">
      <label for="tenant-picker">Tenant</label>
      <select id="tenant-picker" value={tenant} onChange={(event) => onChange(event.currentTarget.value)}>
        {tenants.map((tenantId) => (
          <option key={tenantId} value={tenantId}>
            {tenantId}
          </option>
        ))}
      </select>
    </div>
  );
}
