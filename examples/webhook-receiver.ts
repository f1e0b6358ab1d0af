// A webhook receiver: `WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx examples/webhook-receiver.ts`
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? '');

createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    try {
      // Checks webhook-signature over webhook-id, webhook-timestamp (at most 5 minutes old) and the body.
      const change = webhook.verify(body, request.headers as Record<string, string>) as {
        type: string;
        cursor: string;
        data: { item_id: number | null };
      };
      console.log(`${change.type} item ${change.data.item_id} cursor ${change.cursor}`);
      response.writeHead(204).end(); // any 2xx within 10 s: delivered
    } catch {
      response.writeHead(400).end(); // not signed with our secret: not from the menu API
    }
  });
}).listen(Number(process.env.PORT ?? 4000));
