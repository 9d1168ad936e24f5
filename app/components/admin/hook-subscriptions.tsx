import { Form } from "@remix-run/react";

// The form's subscriptions made by API (REST hooks, docs/api.md#subscriptions), beside its destinations:
// where each goes (the host; a URL's path may be the receiver's token), who made it, and a delete.

export interface HookRowView {
  id: string;
  host: string;
  createdAt: string;
  createdBy: string;
}

export function HookSubscriptions({ hooks, admin }: { hooks: readonly HookRowView[]; admin: boolean }) {
  return (
    <section aria-labelledby="hooks-heading">
      <h2 id="hooks-heading">Subscriptions by API</h2>
      {hooks.length === 0 ? (
        <p>No automation platform has subscribed to this form (docs/api.md, Subscriptions).</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Sends to</th>
              <th scope="col">Made</th>
              <th scope="col">By</th>
              {admin ? <th scope="col">Action</th> : null}
            </tr>
          </thead>
          <tbody>
            {hooks.map((hook) => (
              <tr key={hook.id}>
                <td data-label="Sends to">
                  <code>{hook.host}</code> <span className="small">{hook.id}</span>
                </td>
                <td data-label="Made">{hook.createdAt.slice(0, 16).replace("T", " ")} UTC</td>
                <td data-label="By">{hook.createdBy}</td>
                {admin ? (
                  <td data-label="Action">
                    <Form method="post">
                      <button type="submit" name="intent" value={`unsubscribe:${hook.id}`} className="secondary">
                        {`Delete the subscription to ${hook.host}`}
                      </button>
                    </Form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
