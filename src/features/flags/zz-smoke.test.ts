import { test } from 'node:test'
import { call, useTestApp, DATABASES, allEvents } from '../../../test/test-app.ts'
test('smoke', async (t) => {
  const p = await useTestApp(t, DATABASES[1])
  for (const n of ['p1','c1','c2','c3','p2','lone']) console.log((await call(p,'POST','/api/admin/projects/default/features',{name:n})).status)
  console.log(await call(p,'POST','/api/admin/projects/default/features/c1/dependencies',{feature:'p1'}))
  console.log((await call(p,'POST','/api/admin/projects/default/features/c2/dependencies',{feature:'p1', enabled:false, variants:['x']})).status)
  console.log((await call(p,'POST','/api/admin/projects/default/features/c3/dependencies',{feature:'p2'})).status)
  console.log((await call(p,'GET','/api/admin/projects/default/features/p1')).body)
  console.log((await call(p,'GET','/api/admin/projects/default/features/c2')).body)
  for (const f of [['p1'],['p1','c1'],['p1','c1','c2'],['c1'],['lone'],[],['ghost'],['p2','p1']])
    console.log(JSON.stringify(f), (await call(p,'POST','/api/admin/projects/default/archive/validate',{features:f})).text)
  console.log((await call(p,'POST','/api/admin/projects/default/archive',{features:['p1']})).text)
  console.log((await call(p,'POST','/api/admin/projects/default/archive',{features:['p1','c1','c2']})).status)
  console.log((await call(p,'GET','/api/admin/projects/default/features')).text)
  console.log((await call(p,'GET','/api/admin/projects/default/features/c3/parents')).text)
  console.log((await call(p,'POST','/api/admin/projects/default/archive/validate',{features:[1,null]})).text)
  console.log((await allEvents(p)).map(e=>[e.type,e.featureName, JSON.stringify(e.data)].join(' ')))
})
